import { useVirtualizer, type VirtualItem } from '@tanstack/react-virtual';
import type { RefObject } from 'react';

/**
 * Rows of a long table body, of which only those near the viewport are rendered; the
 * spacer rows above and below keep the scroll height of all of them.
 */
export function useVirtualRows(
  count: number,
  scroller: RefObject<HTMLElement | null>,
  rowHeight: number,
  overscan: number,
): { items: VirtualItem[]; padTop: number; padBottom: number } {
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer's own API, used as documented
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan,
  });
  const items = virtualizer.getVirtualItems();
  return {
    items,
    padTop: items[0]?.start ?? 0,
    padBottom: virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0),
  };
}

export function SpacerRow({ height, colSpan }: { height: number; colSpan: number }) {
  return height > 0 ? (
    <tr aria-hidden="true">
      <td colSpan={colSpan} style={{ height }} />
    </tr>
  ) : null;
}
