import { exactly, text } from './schemas.ts';
import { a, aError, b, minutes, roles, type Endpoint } from './endpoint.ts';

// Signing in beside Part A's own: single sign-on, and Part B's sessions.

export const SINGLE_SIGN_ON_ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'GET',
    path: '/mcapi/auth/oidc',
    tag: 'Single sign-on',
    summary: 'Whether single sign-on is configured, and the provider’s name for the button',
    answers: {
      '200': a(
        'Configured or not',
        exactly({ enabled: { type: 'boolean' }, name: text }, ['name']),
      ),
    },
  },
  {
    method: 'GET',
    path: '/mcapi/auth/oidc/start',
    tag: 'Single sign-on',
    summary: 'Go to the OpenID provider to sign in (a browser navigation)',
    fields: [{ name: 'next', schema: text, description: 'a dashboard path to go to after' }],
    answers: {
      '302': { description: 'To the provider', content: {} },
      '404': aError('Single sign-on is not configured'),
      '429': aError(
        'Too many sign-ins started from this address and not finished (4029); Retry-After',
      ),
    },
  },
  {
    method: 'GET',
    path: '/mcapi/auth/oidc/callback',
    tag: 'Single sign-on',
    summary: 'Where the provider sends the browser back; on to /sign-in#oidc=<handoff>',
    fields: [
      { name: 'code', schema: text },
      { name: 'state', schema: text },
    ],
    answers: {
      '302': { description: 'To the sign-in page with a one-time handoff', content: {} },
      '404': aError('Single sign-on is not configured'),
    },
  },
  {
    method: 'GET',
    path: '/mcapi/auth/oidc/session',
    tag: 'Single sign-on',
    summary: 'Trade the one-time handoff for the session, or for the reason there is none',
    fields: [{ name: 'code', schema: text, required: true }],
    answers: {
      '200': a(
        'Signed in',
        exactly({ sessionId: text, userName: text, role: roles, serverName: text, serverId: text }),
      ),
      '403': aError('Refused, with the reason (3002), or the handoff expired'),
      '404': aError('Single sign-on is not configured'),
      '429': aError(
        'Too many sign-in tries from this address, counted with every sign-in route (4029); Retry-After',
      ),
    },
  },
];

export const PART_B_ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'POST',
    path: '/api/auth/login',
    tag: 'Part B',
    summary: 'Sign in to the flow service',
    fields: [
      { name: 'user', schema: text, required: true },
      { name: 'password', schema: text },
      { name: 'lifetime', schema: minutes, description: 'minutes, 30 by default' },
    ],
    answers: {
      '200': b('<data><sessionId>'),
      '400': b('A missing or malformed parameter (2000)'),
      '403': b('Unknown user or wrong password (2001)'),
      '405': b('Another method (4005); Allow: POST'),
      '429': b('Too many attempts (4029)'),
      '503': b('The data cannot be written'),
    },
  },
  {
    method: 'POST',
    path: '/api/auth/logout',
    tag: 'Part B',
    summary: 'End a flow service session',
    fields: [{ name: 'sessionId', schema: text, required: true }],
    answers: {
      '200': b('<data><sessionId>'),
      '400': b('A missing parameter (2000)'),
      '404': b('No such session (2002)'),
      '405': b('Another method (4005); Allow: POST'),
      '503': b('The data cannot be written'),
    },
  },
  {
    method: 'GET',
    path: '/api/auth/session',
    tag: 'Part B',
    summary: 'Who the flow service session is (extension)',
    security: ['fsSession'],
    answers: { '200': b('<data><user><role><expires>'), '401': b('No live session (2003)') },
  },
];
