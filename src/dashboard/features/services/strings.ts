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
    message: 'Last failure',
    open: 'Open',
  },
  embedded: 'embedded',
  reachable: 'Reachable',
  unreachable: 'Unreachable',
  since: (when: string) => `since ${when}`,
  open: (name: string) => `Open ${name}`,
  current: 'shown now',
  empty: 'No services.',
} as const;
