import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A box that scrolls sideways when what it holds is wider than the screen (a table on a
 * phone, a long unbroken value). While it does, it is a named region that takes focus, so
 * that keyboard users can scroll it too (WCAG 2.1.1); while it fits, it is no extra tab stop.
 */
export function ScrollX({
  label,
  className = '',
  children,
}: {
  /** Names the region for screen readers, e.g. the table's title. */
  label: string;
  className?: string;
  children: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  // After every render: what it holds may have grown with new rows, not only with the window.
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setOverflows(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    for (const child of element.children) observer.observe(child);
    return () => observer.disconnect();
  });
  return (
    <div
      ref={box}
      className={`overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600 ${className}`}
      {...(overflows ? { role: 'region', 'aria-label': label, tabIndex: 0 } : {})}
    >
      {children}
    </div>
  );
}
