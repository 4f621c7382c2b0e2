/** Texts of the shell; each feature keeps its own next to it. */
export const strings = {
  productName: 'Pipeline dashboard',
  skipToContent: 'Skip to content',
  nav: {
    label: 'Main',
    overview: 'Overview',
    pipelines: 'Pipelines',
    requests: 'Requests',
    databases: 'Databases',
    settings: 'Settings',
    audit: 'Audit',
    services: 'Services',
  },
  service: {
    choose: 'Service',
    unreachable: 'unreachable',
    unknown: (id: string) => `This server has no service “${id}”.`,
    toServices: 'See the services',
  },
  theme: { label: 'Theme', system: 'System', light: 'Light', dark: 'Dark' },
  apiKeyUser: 'API key',
  serverTitle: 'Server',
  versionTitle: 'Service version',
  signOut: 'Sign out',
  dismiss: 'Dismiss',
  unreachable: 'The pipeline service cannot be reached. Retrying…',
  notFound: 'Nothing here.',
} as const;
