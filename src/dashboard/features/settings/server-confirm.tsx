import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { notify } from '../../core/notices.ts';

/** What a confirmation says: its title, its text, and its two buttons' words. */
export interface ConfirmWords {
  readonly title: string;
  readonly text: string;
  readonly keep: string;
  readonly go: string;
}

/**
 * The app's own confirmation of a change to this server that may cut someone off or cannot be
 * taken back (a switch turned off, a key reissued, a token revoked): keeping things as they
 * are comes first, the change is the red button. Once the change is made the dialog closes
 * and says `done`; refused, it stays open with the refusal under the text.
 */
export function ServerConfirm({
  open,
  words,
  change: { isPending, error },
  onClose,
  onGo,
  done,
}: {
  open: boolean;
  words: ConfirmWords;
  /** The change's state (its mutation): pending, or refused with the service's words. */
  change: { readonly isPending: boolean; readonly error: unknown };
  onClose: () => void;
  /** Makes the change; its refusal is shown through `change.error`. */
  onGo: () => Promise<unknown>;
  /** Said once the change is made. */
  done?: string | undefined;
}) {
  const go = () =>
    void onGo().then(
      () => {
        onClose();
        if (done !== undefined) notify({ kind: 'success', text: done });
      },
      // The refusal is the mutation's error, shown under the text.
      () => undefined,
    );
  return (
    <Dialog
      open={open}
      about="server"
      title={words.title}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>{words.keep}</Button>
          <Button variant="danger" disabled={isPending} onClick={go}>
            {words.go}
          </Button>
        </>
      }
    >
      <p>{words.text}</p>
      {error ? <ErrorView error={error} /> : null}
    </Dialog>
  );
}
