import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { bandClasses, needsMarking, serviceTitle } from '../shared/environment.ts';
import { useCurrentService, useServices } from '../shared/services.ts';

/**
 * A modal built on the native <dialog>: the browser traps focus and closes on Escape. The
 * browser's own return of focus is lost when a page unmounts the dialog as it closes (most
 * do), so the opener is remembered here and focused again on close and on unmount. When
 * neither the opener nor a stand-in for it can take the focus (the list re-read while the
 * dialog was open and its row is gone), the page's `returnFocusTo` says where to, so that
 * focus never falls to the page's body.
 */
function returnFocus(
  opened: { current: Opened | null },
  fallback: { readonly current: (() => HTMLElement | undefined) | undefined },
): void {
  const was = opened.current;
  opened.current = null;
  if (!was) return;
  // After the dialog's own DOM work: focus set during it would be taken back.
  queueMicrotask(() => {
    const opener = was.opener ? standIn(was.opener) : undefined;
    if (opener && takesFocus(opener)) return;
    const elsewhere = fallback.current?.();
    if (elsewhere) takesFocus(elsewhere);
  });
}

/** What had the focus as the dialog opened; null when nothing did (Safari's clicks). */
interface Opened {
  readonly opener: HTMLElement | null;
}

/** Focuses an element; false when it cannot take the focus (disabled, hidden). */
function takesFocus(element: HTMLElement): boolean {
  element.focus();
  return document.activeElement === element;
}

/**
 * The opener, or what took its place: a list that refreshed while the dialog was open may
 * have rendered the row again (a retried request leaves a status filter and comes back), and
 * the new button with the same accessible name is where the user was.
 */
function standIn(element: HTMLElement): HTMLElement | undefined {
  if (element.isConnected) return element;
  const name = element.getAttribute('aria-label');
  if (!name) return undefined;
  const twin = document.querySelector(`${element.localName}[aria-label="${CSS.escape(name)}"]`);
  return twin instanceof HTMLElement ? twin : undefined;
}

/**
 * What a dialog acts on, said above its title in that service's colour: the service being
 * looked at (production in its strong colour), or this server as a whole (Settings). Nothing
 * where there is nothing to tell apart (a lone plain service, an API key sign-in).
 */
function useScope(about: 'service' | 'server'): { text: string; className: string } | undefined {
  const { t } = useTranslation();
  const { services, known } = useServices();
  const service = useCurrentService();
  if (!known) return undefined;
  if (about === 'server')
    // A lone embedded service is this server: nothing to tell apart.
    return services.length < 2 && service.embedded
      ? undefined
      : {
          text: t('dialogOn.server'),
          className: 'bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100',
        };
  if (!needsMarking(service, services.length)) return undefined;
  return {
    text: t('dialogOn.service', { name: serviceTitle(service) }),
    className: `${bandClasses(service)} font-semibold`,
  };
}

export function Dialog({
  open,
  title,
  onClose,
  children,
  footer,
  wide,
  about = 'service',
  returnFocusTo,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
  /** What it acts on, said above its title: the service looked at (default), or this server. */
  about?: 'service' | 'server';
  /** Where focus goes on close when its opener is gone: never the page's body. */
  returnFocusTo?: () => HTMLElement | undefined;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const scopeId = useId();
  const scope = useScope(about);
  // Set while the dialog is open: a dialog that never opened gives no focus back.
  const opened = useRef<Opened | null>(null);
  // The page's latest answer, read as the dialog closes or unmounts.
  const fallback = useRef(returnFocusTo);
  useEffect(() => {
    fallback.current = returnFocusTo;
  });
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      const focused = document.activeElement;
      opened.current = {
        opener: focused instanceof HTMLElement && focused !== document.body ? focused : null,
      };
      dialog.showModal();
    }
    if (!open && dialog.open) dialog.close();
    if (!open) returnFocus(opened, fallback);
  }, [open]);
  useEffect(() => () => returnFocus(opened, fallback), []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={open && scope ? scopeId : undefined}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      className={`m-auto w-[calc(100%-2rem)] ${wide ? 'max-w-2xl' : 'max-w-md'} rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100`}
    >
      {open ? (
        <div className="flex max-h-[85vh] flex-col">
          {scope ? (
            <p
              id={scopeId}
              data-testid="dialog-scope"
              className={`${scope.className} px-5 py-1 text-xs`}
            >
              {scope.text}
            </p>
          ) : null}
          <h2
            id={titleId}
            className="border-b border-slate-200 px-5 py-3 text-base font-semibold dark:border-slate-700"
          >
            {title}
          </h2>
          <div className="overflow-auto px-5 py-4 text-sm">{children}</div>
          {footer ? (
            <div className="flex justify-end gap-2 border-t border-slate-200 px-5 py-3 dark:border-slate-700">
              {footer}
            </div>
          ) : null}
        </div>
      ) : null}
    </dialog>
  );
}
