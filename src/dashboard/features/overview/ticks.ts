/**
 * The count axis of the hourly chart: whole numbers only (a request is never a quarter), at
 * most about five steps of 1, 2 or 5 times a power of ten, from 0 to a top at or above the
 * busiest hour.
 */
export function countTicks(max: number, steps = 5): number[] {
  const top = Math.max(1, Math.ceil(max));
  let step = 1;
  for (let power = 1; step * steps < top; power *= 10) {
    step = [1, 2, 5, 10].map((m) => m * power).find((s) => s * steps >= top) ?? power * 10;
  }
  const ticks: number[] = [];
  for (let tick = 0; tick < top + step; tick += step) {
    ticks.push(tick);
    if (tick >= top) break;
  }
  return ticks;
}
