import { formatCount } from '../../shared/strings.ts';

export const strings = {
  title: 'Overview',
  day: 'Day',
  today: 'Today',
  byPipeline: 'Requests per pipeline',
  pipeline: 'Pipeline',
  total: 'Total',
  perHour: 'Requests per hour',
  hourAxis: 'Hour',
  countAxis: 'Requests',
  latestErrors: 'Latest errors',
  noErrors: 'No request ended in Error on this day.',
  retry: 'Retry',
  suspended: 'Suspended pipelines',
  noneSuspended: 'Every pipeline is running.',
  resume: 'Resume',
  allGood: 'Nothing is wrong right now: no errors and no suspended pipeline.',
  inError: (errors: number) => `${formatCount(errors)} request${errors === 1 ? '' : 's'} in Error`,
  suspendedCount: (suspended: number) =>
    `${suspended} suspended pipeline${suspended === 1 ? '' : 's'}`,
  otherStates: (states: readonly { status: string; count: number }[]) =>
    `In other states, as the service words them: ${states
      .map((s) => `${formatCount(s.count)} ${s.status || '(no status)'}`)
      .join(', ')}`,
  noStatus: '(no status)',
  truncated: (counted: number, total: number) =>
    `This service tells no exact counts: counted the newest ${formatCount(counted)} of the day's ${formatCount(total)} requests.`,
  dayTotal: (total: number) =>
    `${formatCount(total)} request${total === 1 ? '' : 's'} on this day, counted exactly by the service.`,
  refreshing: (s: number) =>
    s > 0 ? `Refreshes every ${s} s` : 'Auto-refresh is off (set it on the Requests page)',
} as const;
