import { describe, expect, it, vi } from 'vitest';
import { i18n } from '../i18n/index.ts';
import { roleHere, serviceShown } from './service-roles.ts';

// The dashboard's rights follow the person's role on the service looked at (contract
// section 12), with the reason of each refused control in the catalogue's words.

await i18n.loadLanguages('ja');

// auth.ts reads the browser's storage as it loads: none is stored here.
const noStorage = { getItem: () => null, setItem: () => {}, removeItem: () => {} };
vi.stubGlobal('sessionStorage', noStorage);
vi.stubGlobal('localStorage', noStorage);
const { can, forbiddenReason } = await import('./auth.ts');

const olivia = {
  kind: 'session',
  sessionId: 's',
  userName: 'olivia',
  role: 'operator',
  serverName: 'x',
  serverId: 'y',
} as const;
const roles = [
  { service: 'local', role: 'operator' },
  { service: 'prod', role: 'viewer' },
] as const;

describe('the role on the service looked at', () => {
  it('is the one the server gives there; the first service when none is named; the default until known', () => {
    expect(roleHere('operator', roles, 'prod')).toEqual({
      role: 'viewer',
      service: 'prod',
      several: true,
    });
    expect(roleHere('operator', roles, undefined)).toEqual({
      role: 'operator',
      service: 'local',
      several: true,
    });
    expect(roleHere('developer', undefined, 'prod')).toEqual({
      role: 'developer',
      service: 'prod',
      several: false,
    });
    expect(roleHere('viewer', [{ service: 'local', role: 'viewer' }], undefined)).toEqual({
      role: 'viewer',
      service: 'local',
      several: false,
    });
  });

  it('decides what the controls allow, and names the service in the reason on a server of several', () => {
    const onProd = roleHere(olivia.role, roles, 'prod');
    const onLocal = roleHere(olivia.role, roles, 'local');
    expect(can(olivia, 'requestretry', onLocal)).toBe(true);
    expect(can(olivia, 'requestretry', onProd)).toBe(false);
    expect(can(olivia, 'requestlist', onProd)).toBe(true);
    expect(forbiddenReason(olivia, 'requestretry', i18n.getFixedT('en'), onLocal)).toBeUndefined();
    expect(forbiddenReason(olivia, 'requestretry', i18n.getFixedT('en'), onProd)).toBe(
      'On prod: The viewer role may not retry requests.',
    );
    expect(forbiddenReason(olivia, 'suspend', i18n.getFixedT('ja'), onProd)).toBe(
      'prod：閲覧者の権限ではパイプラインを停止できません。',
    );
    // With the list of services known, the service by its name, as a person reads it (issue
    // 38: 「オペレーター（tokyo）」); its id only until then.
    const named = roleHere(olivia.role, roles, 'prod', 'Production');
    expect(serviceShown(named)).toBe('Production');
    expect(serviceShown(onProd)).toBe('prod');
    expect(forbiddenReason(olivia, 'requestretry', i18n.getFixedT('en'), named)).toBe(
      'On Production: The viewer role may not retry requests.',
    );
    expect(forbiddenReason(olivia, 'suspend', i18n.getFixedT('ja'), named)).toBe(
      'Production：閲覧者の権限ではパイプラインを停止できません。',
    );
    // No service named: the first of the roles, whose name is not the one given.
    expect(serviceShown(roleHere(olivia.role, roles, undefined, 'Production'))).toBe('local');
    // One service: the reason as it always read.
    const alone = roleHere('viewer', [{ service: 'local', role: 'viewer' }], undefined);
    expect(forbiddenReason(olivia, 'exec', i18n.getFixedT('en'), alone)).toBe(
      'The viewer role may not execute pipelines.',
    );
    // A viewer may change nothing anywhere.
    for (const operation of [
      'exec',
      'requestretry',
      'requestcancel',
      'resume',
      'suspend',
      'pipelinecache',
      'deletetable',
      'droptable',
    ] as const)
      expect(can(olivia, operation, alone), operation).toBe(false);
  });
});
