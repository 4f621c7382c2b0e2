/**
 * What the test runners' reporters print when a run ends: the files that took longest, so a
 * file that grows slow is seen in every run, not found when CI runs out of time.
 */

/** Minutes and seconds (`3 min 07 s`), or seconds alone under a minute (`41.2 s`). */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

/** The `count` slowest files of `timeByFile` (file → milliseconds), slowest first, one line each. */
export function slowestFiles(
  title: string,
  timeByFile: ReadonlyMap<string, number>,
  count = 10,
): string {
  const rows = [...timeByFile].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const width = Math.max(0, ...rows.slice(0, count).map(([, ms]) => formatDuration(ms).length));
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  return [
    `${title}: the ${Math.min(count, rows.length)} slowest of ${rows.length} files (${formatDuration(total)} in all, summed over workers)`,
    ...rows.slice(0, count).map(([file, ms]) => `  ${formatDuration(ms).padStart(width)}  ${file}`),
  ].join('\n');
}
