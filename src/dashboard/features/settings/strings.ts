export const strings = {
  title: 'Settings',
  service: 'Service',
  version: 'Version',
  on: 'On',
  off: 'Off',
  serverName: 'Server name',
  serverId: 'Server id',
  api: 'Pipeline API',
  enabled: 'Pipeline API enabled',
  enabledHint:
    'While disabled, every pipeline API call is refused (403, code 1101) — the dashboard’s too.',
  key: 'API key',
  noKey: 'No key has been issued yet; enabling the API issues one.',
  reveal: 'Reveal',
  hide: 'Hide',
  copy: 'Copy',
  copied: 'API key copied.',
  update: 'Update',
  confirmTitle: 'Issue a new API key?',
  confirmText:
    'The current key stops working at once, for every script and person using it, and so do the sessions (SESSIONID cookies) started with it.',
  confirmGo: 'Issue a new key',
  keep: 'Keep the current key',
  updated: 'A new API key was issued.',
  readOnly: 'Only administrators see and change the pipeline API settings.',
  viaKey:
    'Signed in with the API key: sign in with an administrator’s name and password to manage the settings.',
  disableConfirm:
    'Disable the pipeline API? This dashboard uses it too, so its pages will stop working until an administrator enables it again.',
} as const;
