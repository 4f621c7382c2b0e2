import { useTimeFormat } from '../shared/use-time.ts';

/** A time the service wrote on its own clock, shown on the user's chosen clock with its zone. */
export function ServiceTime({ stamp }: { stamp: string }) {
  const time = useTimeFormat();
  if (!stamp) return null;
  return <time dateTime={time.stampIso(stamp)}>{time.serviceStamp(stamp)}</time>;
}

/** An instant our server wrote (ISO with zone), shown on the user's chosen clock with its zone. */
export function Instant({ iso }: { iso: string }) {
  const time = useTimeFormat();
  if (!iso) return null;
  return <time dateTime={iso}>{time.instant(iso)}</time>;
}
