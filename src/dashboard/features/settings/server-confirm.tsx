import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';

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
 * are comes first, the change is the red button, and a refusal shows under the text.
 */
export function ServerConfirm({
  open,
  words,
  pending,
  error,
  onKeep,
  onGo,
}: {
  open: boolean;
  words: ConfirmWords;
  pending: boolean;
  error?: unknown;
  onKeep: () => void;
  onGo: () => void;
}) {
  return (
    <Dialog
      open={open}
      about="server"
      title={words.title}
      onClose={onKeep}
      footer={
        <>
          <Button onClick={onKeep}>{words.keep}</Button>
          <Button variant="danger" disabled={pending} onClick={onGo}>
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
