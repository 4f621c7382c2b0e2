import { Button, type ButtonProps } from './button.tsx';

export type RequestAction = 'retry' | 'cancel';

const REQUEST_ACTIONS: readonly RequestAction[] = ['retry', 'cancel'];

/**
 * Retry and cancel side by side, as the request page, a row of the requests table and a
 * selection offer them: each disabled with its reason while it cannot be taken (the button
 * stays focusable and says why).
 */
export function RequestActionButtons({
  reasons,
  words,
  label,
  variant,
  size,
  onAction,
}: {
  /** Why each cannot be taken, undefined when it can. */
  reasons: Readonly<Record<RequestAction, string | undefined>>;
  /** The button's text. */
  words: (action: RequestAction) => string;
  /** Its accessible name, when its text alone does not say what it acts on. */
  label?: (action: RequestAction) => string;
  variant?: (action: RequestAction) => ButtonProps['variant'];
  size?: ButtonProps['size'];
  onAction: (action: RequestAction) => void;
}) {
  return REQUEST_ACTIONS.map((action) => (
    <Button
      key={action}
      size={size}
      variant={variant?.(action)}
      disabledReason={reasons[action]}
      onClick={() => onAction(action)}
      aria-label={label?.(action)}
    >
      {words(action)}
    </Button>
  ));
}
