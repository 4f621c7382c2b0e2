import { dayOfRequest, ymdToIso } from '../../paths.ts';

// The application log's Date is a time of day alone (`hh:mm:ss`, interfaces.md), on the
// service's clock: to say its zone (and to show it in another) it needs its day.

const DAY = /^(\d{4})[-/]?(\d{2})[-/]?(\d{2})/;
const CLOCK = /^(\d{1,2}):(\d{2}):(\d{2})$/;

function nextDay(iso: string): string {
  const date = new Date(`${iso}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

/**
 * The whole service stamp (`YYYY-MM-DD hh:mm:ss`) of each application-log time, or
 * undefined for one that is not a time of day. The first line is on the request's begin
 * day (from its BeginTime, else the day its id names); a time earlier than the one before
 * it has crossed midnight, since the log is written in order.
 */
export function appLogStamps(
  times: readonly string[],
  beginTime: string,
  requestId: string,
): (string | undefined)[] {
  const begun = DAY.exec(beginTime.trim());
  const idDay = dayOfRequest(requestId);
  let day = begun
    ? `${begun[1]}-${begun[2]}-${begun[3]}`
    : idDay !== undefined
      ? ymdToIso(idDay)
      : undefined;
  let before = -1;
  return times.map((time) => {
    const clock = CLOCK.exec(time.trim());
    if (!clock || day === undefined) return undefined;
    const [h, m, s] = clock.slice(1).map(Number) as [number, number, number];
    const seconds = h * 3600 + m * 60 + s;
    if (seconds < before) day = nextDay(day);
    before = seconds;
    return `${day} ${String(h).padStart(2, '0')}:${clock[2]}:${clock[3]}`;
  });
}
