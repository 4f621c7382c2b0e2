/**
 * A stage's time in seconds: interfaces.md shows `mm:ss`; a stage of an hour or more may
 * come as `75:12` or `1:15:12`, and some products add fractions (`00:03.250`). Undefined for
 * anything else, which is shown as written without a bar.
 */
export function stageSeconds(time: string): number | undefined {
  const m = /^(?:(\d+):)?(\d+):(\d{2}(?:[.,]\d+)?)$/.exec(time.trim());
  if (!m) return undefined;
  const [, hours = '0', minutes = '0', rest = '0'] = m;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(rest.replace(',', '.'));
}
