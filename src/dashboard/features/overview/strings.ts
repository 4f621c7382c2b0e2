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
  attention: (errors: number, suspended: number) =>
    [
      errors > 0 ? `${errors} request${errors === 1 ? '' : 's'} in Error` : '',
      suspended > 0 ? `${suspended} suspended pipeline${suspended === 1 ? '' : 's'}` : '',
    ]
      .filter(Boolean)
      .join(' · '),
  otherStates: (states: readonly { status: string; count: number }[]) =>
    `In other states, as the service words them: ${states
      .map((s) => `${s.count} ${s.status || '(no status)'}`)
      .join(', ')}`,
  noStatus: '(no status)',
  truncated: (n: number) => `Counted the newest ${n.toLocaleString()} requests of the day.`,
  refreshing: (s: number) =>
    s > 0 ? `Refreshes every ${s} s` : 'Auto-refresh is off (set it on the Requests page)',
} as const;
