import { useLayoutEffect, useRef, useState } from 'react';

// Values typed since the URL last showed one of them; more than this and the oldest go.
const MAX_UNSHOWN = 100;

/**
 * What a field shows whose value lives in the URL, and the setter to call as it is typed in
 * (beside the change of the URL itself). React Router shows a new URL in a transition, later
 * than the next key on a slow phone: a field showing the URL's value put the old text back
 * after each key and kept only some of them. The field shows what was typed at once, and
 * follows the URL only when it shows a value not typed here (back, a link, Today).
 *
 * The URL is compared after each commit, not during render: a render may show a URL that
 * never commits, between renders that show the one before it.
 */
export function useUrlDraft(value: string): readonly [string, (typed: string) => void] {
  const [shown, setShown] = useState(value);
  const unshown = useRef<readonly string[]>([]);
  useLayoutEffect(() => {
    const at = unshown.current.indexOf(value);
    if (at >= 0) {
      unshown.current = unshown.current.slice(at + 1);
    } else {
      unshown.current = [];
      setShown(value);
    }
  }, [value]);
  const type = (typed: string) => {
    unshown.current = [...unshown.current, typed].slice(-MAX_UNSHOWN);
    setShown(typed);
  };
  return [shown, type] as const;
}
