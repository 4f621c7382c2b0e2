export const strings = {
  title: 'Services',
  intro:
    'The pipeline services this server stands in front of. Each is checked every 30 s; the page you open shows the service its link names.',
  columns: {
    service: 'Service',
    id: 'Id',
    state: 'State',
    version: 'Version',
    checkedAt: 'Checked',
    indexedAt: 'Request lists',
    message: 'Last failure',
    open: 'Open',
  },
  embedded: 'embedded',
  reachable: 'Reachable',
  unreachable: 'Unreachable',
  since: (when: string) => `since ${when}`,
  open: (name: string) => `Open ${name}`,
  current: 'shown now',
  // An upstream's lists come from the server's index, refreshed by one poller per service.
  asOf: (when: string) => `as of ${when.slice(11)}`,
  live: 'live',
  notYet: 'not indexed yet',
  empty: 'No services.',
} as const;
