import type { TreeObject } from '../../kit/index.ts';
import { elementOf, elementsOf, leafText } from '../../kit/index.ts';

// What an upstream's own answers tell of its time zone (interfaces.md names none): the
// offset from a request that began a moment ago, the abbreviation from its pipeline dates.

/** The zone abbreviation of a list answer's first pipeline date (`YYYY-MM-DDThh:mm:ss.mmm JST`). */
export function zoneNameOf(tree: TreeObject): string | undefined {
  for (const p of elementsOf(elementOf(tree.PipelineList).PipeLine)) {
    for (const date of [leafText(p.Createdate), leafText(p.Updatedate)]) {
      const zone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+(\S{1,16})$/.exec(date)?.[1];
      if (zone) return zone;
    }
  }
  return undefined;
}

/** How long a poller waits before asking the pipeline list again for a zone not yet seen. */
export const ZONE_ASK_MS = 5 * 60_000;

/** Minutes a service's clock is ahead of UTC, from a request that began a moment ago. */
export function offsetFrom(beginDate: string, now: Date): number | undefined {
  const local = Date.parse(`${beginDate.replace(' ', 'T').slice(0, 19)}Z`);
  if (Number.isNaN(local)) return undefined;
  const minutes = Math.round((local - now.getTime()) / 60_000 / 15) * 15;
  return Math.abs(minutes) <= 14 * 60 ? minutes : undefined;
}

/**
 * A vendor's date in our one form (`YYYY-MM-DD hh:mm:ss`, the service's own clock), with the
 * zone it carried: interfaces.md shows `-` and `/` forms, and products add `T`,
 * milliseconds or a zone (`JST`, `+09:00`). Text that is no date is kept as it came.
 */
export function normalDate(value: string): { date: string; zone: string | undefined } {
  const match =
    /^\s*(\d{4})[-/](\d{2})[-/](\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?\s*([A-Za-z][A-Za-z0-9/_+-]{0,31}|[+-]\d{2}:?\d{2})?\s*$/.exec(
      value,
    );
  if (!match) return { date: value, zone: undefined };
  const [, y, mo, d, h, mi, s, zone] = match;
  return { date: `${y}-${mo}-${d} ${h}:${mi}:${s}`, zone };
}
