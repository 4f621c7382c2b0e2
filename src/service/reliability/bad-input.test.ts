import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationName } from '../../kit/wire.ts';
import { ordersCsv, writeTestPipelines } from '../testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { databaseChecksum } from './checksum.ts';

// A generated corpus of bad requests over every endpoint. Each must get a 4xx with the
// contract's code for its status, and none may change any database.

interface Case {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
  /** Expected HTTP status, when the case pins one. */
  readonly status?: number;
}

const CODES_BY_STATUS: Record<number, number[]> = {
  400: [1001, 1002, 1003],
  401: [1102, 1103],
  403: [1101, 1104],
  404: [1201, 1202, 1203, 1204],
  405: [1401],
  409: [1301],
  413: [1501],
};

const FORM = 'application/x-www-form-urlencoded; charset=UTF-8';
const SQL = ["' OR '1'='1", '1; DROP TABLE PIPELINE; --', 'ORDERS" ; DELETE FROM ORDERS; --', '%'];
const PATHS = [
  '../../etc/passwd',
  '..\\..\\windows',
  '/etc/passwd',
  'a/../../b',
  '.',
  '..',
  'x\u0000.csv',
  'C:\\boot.ini',
];
const HUGE = 'x'.repeat(20_000);
const WEIRD = [
  '',
  ' ',
  '\t',
  '-1',
  '1.5',
  '1e3',
  'NaN',
  'null',
  'true',
  '０',
  '99999999999999999999',
  '<script>',
  '\u202e',
  '😀',
];

/** Parameters of each operation with a valid-looking value, to break one at a time. */
const VALID: Record<OperationName, Record<string, string>> = {
  list: {},
  inbox: {},
  version: {},
  exec: { pipelineid: 'pl_1', filename: 'orders.csv' },
  requestlist: { id: 'pl_1', date: '20261121', index: '0', pagesize: '10' },
  requestdetail: { requestid: 'pl_1-20261121_09-000001', requestlog: 'true', applog: 'false' },
  requeststats: { id: 'pl_1', date: '20261121' },
  requestretry: { requestid: 'pl_1-20261121_09-000001' },
  requestcancel: { requestid: 'pl_1-20261121_09-000001' },
  resume: { pipelineid: 'pl_1' },
  suspend: { pipelineid: 'pl_1' },
  systemdb: { tablename: 'PIPELINE', pagesize: '10', index: '0' },
  statusdb: { pagesize: '10' },
  actiondb: { tablename: 'ORDERS', pagesize: '10' },
  pipelinecache: { pipelineid: 'pl_1', sensor: 'true', filter: 'false', joint: 'false' },
  deletetable: { table: 'ORDERS' },
  droptable: { table: 'ORDERS' },
};

/** Fields whose bad values must be refused whatever the rest (the only-valid case is not in the corpus). */
const REQUIRED: Partial<Record<OperationName, string[]>> = {
  exec: ['pipelineid', 'filename'],
  requestdetail: ['requestid'],
  requestretry: ['requestid'],
  requestcancel: ['requestid'],
  resume: ['pipelineid'],
  suspend: ['pipelineid'],
  pipelinecache: ['pipelineid'],
  deletetable: ['table'],
  droptable: ['table'],
};

function send(
  op: OperationName,
  fields: Record<string, string> | string,
  extra: Partial<Case> = {},
): Case {
  const method = OPERATIONS[op];
  const encoded = typeof fields === 'string' ? fields : new URLSearchParams(fields).toString();
  const hasBody = method === 'POST' || method === 'PUT';
  return {
    label: `${op} ${encoded.slice(0, 60)}`,
    method,
    path: `/pipelineapi/${op}/json${hasBody || !encoded ? '' : `?${encoded}`}`,
    ...(hasBody ? { body: encoded, headers: { 'Content-Type': FORM } } : {}),
    ...extra,
  };
}

function corpus(): Case[] {
  const cases: Case[] = [];
  for (const op of Object.keys(OPERATIONS) as OperationName[]) {
    const valid = VALID[op];
    const required = REQUIRED[op] ?? [];
    for (const name of required) {
      const { [name]: _dropped, ...rest } = valid;
      cases.push({ ...send(op, rest), label: `${op} without ${name}`, status: 400 });
      for (const value of [...WEIRD, ...SQL, ...PATHS, HUGE]) {
        // Only values that cannot be a valid id, name or flag for this field.
        if (
          name === 'filename' &&
          // eslint-disable-next-line no-control-regex -- NUL is one of the characters a file name may not hold
          !/[/\\\u0000]|\.\./.test(value) &&
          value.trim() !== '' &&
          value.length <= 255
        )
          continue;
        cases.push(send(op, { ...valid, [name]: value }));
      }
      cases.push({
        ...send(
          op,
          `${new URLSearchParams(valid).toString()}&${name}=${encodeURIComponent(valid[name] ?? '')}`,
        ),
        label: `${op} ${name} twice`,
        status: 400,
      });
      cases.push({
        ...send(
          op,
          `${new URLSearchParams({ ...valid, [name]: '' }).toString().replace(`${name}=`, `${name}=%FF%FE`)}`,
        ),
        label: `${op} ${name} invalid UTF-8`,
      });
    }
    for (const flag of ['requestlog', 'applog', 'sensor', 'filter', 'joint'].filter(
      (f) => f in valid,
    )) {
      for (const value of ['yes', '1', 'TRUE', ' true'])
        cases.push(send(op, { ...valid, [flag]: value }));
    }
    for (const number of ['index', 'pagesize'].filter(
      (f) => f in valid || op.endsWith('db') || op === 'requestlist',
    )) {
      for (const value of ['-1', 'abc', '1.5', '0x10', '99999999999', '1e3', '']) {
        if (value === '') continue;
        cases.push(send(op, { ...valid, [number]: value }, { status: 400 }));
      }
    }
    for (const wrong of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter(
      (m) => m !== OPERATIONS[op],
    )) {
      cases.push({
        label: `${op} by ${wrong}`,
        method: wrong,
        path: `/pipelineapi/${op}/json?${new URLSearchParams(valid)}`,
        status: 405,
      });
    }
    cases.push({
      label: `${op} as yaml`,
      method: OPERATIONS[op],
      path: `/pipelineapi/${op}/yaml`,
      status: 400,
    });
    if (OPERATIONS[op] === 'POST' || OPERATIONS[op] === 'PUT' || OPERATIONS[op] === 'DELETE') {
      for (const type of [
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/xml',
      ]) {
        cases.push({
          label: `${op} as ${type}`,
          method: OPERATIONS[op],
          path: `/pipelineapi/${op}/json`,
          body: JSON.stringify(valid),
          headers: { 'Content-Type': type },
          status: 400,
        });
      }
      cases.push({
        label: `${op} 2 MiB body`,
        method: OPERATIONS[op],
        path: `/pipelineapi/${op}/json`,
        body: `a=${'b'.repeat(2 * 1024 * 1024)}`,
        headers: { 'Content-Type': FORM },
        status: 413,
      });
      cases.push({
        label: `${op} raw invalid UTF-8 body`,
        method: OPERATIONS[op],
        path: `/pipelineapi/${op}/json`,
        body: Buffer.from([0x70, 0x69, 0x70, 0x65, 0x3d, 0xff, 0xfe, 0x80]),
        headers: { 'Content-Type': FORM },
      });
    }
  }
  for (const table of [
    ...SQL,
    'sqlite_master',
    '_CACHE',
    'USERS',
    'SETTING',
    'STATUS20261121',
    '',
  ]) {
    if (table === '') continue;
    cases.push(send('systemdb', { tablename: table }));
    cases.push(send('droptable', { table }));
  }
  for (const path of [
    '/pipelineapi/',
    '/pipelineapi/list/json/extra',
    '/pipelineapi/%00/json',
    '/pipelineapi/constructor/json',
    '/pipelineapi/list/%2e%2e',
  ]) {
    cases.push({ label: path, method: 'GET', path });
  }
  // Parts A and B: missing, wrong types and payloads on login and logout.
  const partA = (fields: string, status?: number): Case => ({
    label: `mcapi login ${fields.slice(0, 40)}`,
    method: 'POST',
    path: '/mcapi/auth/login',
    body: fields,
    headers: { 'Content-Type': FORM },
    ...(status ? { status } : {}),
  });
  const partB = (fields: string, status?: number): Case => ({
    label: `api login ${fields.slice(0, 40)}`,
    method: 'POST',
    path: '/api/auth/login',
    body: fields,
    headers: { 'Content-Type': FORM },
    ...(status ? { status } : {}),
  });
  for (const fields of [
    '',
    'userName=admin',
    'password=x',
    'userName=admin&password=x&timeout=abc',
    'userName=admin&password=x&timeout=0',
    'userName=admin&password=x&getRole=maybe',
    `userName=${encodeURIComponent(SQL[0] as string)}&password=x`,
    `userName=${HUGE}&password=x`,
    'userName=%FF&password=%FE',
  ]) {
    cases.push(partA(fields));
  }
  for (const fields of [
    '',
    'password=x',
    'user=admin&lifetime=-1',
    `user=${encodeURIComponent(SQL[1] as string)}`,
    'user=%FF',
  ])
    cases.push(partB(fields));
  cases.push({
    label: 'mcapi logout none',
    method: 'POST',
    path: '/mcapi/auth/logout',
    body: '',
    headers: { 'Content-Type': FORM },
    status: 400,
  });
  cases.push({
    label: 'api logout none',
    method: 'POST',
    path: '/api/auth/logout',
    body: '',
    headers: { 'Content-Type': FORM },
    status: 400,
  });
  cases.push({
    label: 'mcapi login json',
    method: 'POST',
    path: '/mcapi/auth/login',
    body: '{"userName":"admin"}',
    headers: { 'Content-Type': 'application/json' },
    status: 400,
  });
  cases.push({
    label: 'settings without session',
    method: 'PUT',
    path: '/mcapi/pipeline/settings',
    body: 'apiEnabled=false',
    headers: { 'Content-Type': FORM },
    status: 401,
  });
  cases.push({
    label: 'apikey without session',
    method: 'POST',
    path: '/mcapi/pipeline/apikey',
    status: 401,
  });
  return cases;
}

let service: TestService;

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'bad-defs-'))),
    adminPassword: 'admin-password-9',
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), ordersCsv(20));
  await service.client.exec('pl_1', 'orders.csv');
  await service.client.exec('pl_1', 'missing.csv');
  await service.app.engine.whenIdle();
});

afterAll(async () => {
  await service.close();
});

describe('bad input', () => {
  it('gets a 4xx with the contract code for every case of a generated corpus, and changes nothing', async () => {
    const cases = corpus();
    expect(cases.length).toBeGreaterThanOrEqual(300);
    // The audit log records refused changes too (that is its job); everything else stays.
    const auditCount = () =>
      (
        service.app.context.dbs.system.prepare('SELECT COUNT(*) AS n FROM AUDIT').get() as {
          n: number;
        }
      ).n;
    const auditBefore = auditCount();
    // The audit records every call, refused or not; the sign-in tries count every well-formed
    // try of a password (a wrong one too: that is what they are for). Nothing else changes.
    const before = databaseChecksum(service.app.context.dbs, new Set(['AUDIT', 'SIGN_IN_TRIES']));
    const outbox = readdirSync(join(service.dataDir, 'outbox'));
    const failures: string[] = [];
    for (const c of cases) {
      const response = await service.fetch(c.path, {
        method: c.method,
        headers: { 'X-Pipelinewebapi': TEST_API_KEY, ...c.headers },
        ...(c.body !== undefined ? { body: c.body } : {}),
      });
      const text = await response.text();
      const problems: string[] = [];
      if (response.status >= 500) problems.push(`answered ${response.status}`);
      if (response.status < 400) problems.push(`was accepted (${response.status})`);
      if (c.status !== undefined && response.status !== c.status)
        problems.push(`status ${response.status}, expected ${c.status}`);
      if (c.path.startsWith('/pipelineapi')) {
        const code = /"Code":(\d+)|<Code>(\d+)<\/Code>/.exec(text);
        const value = Number(code?.[1] ?? code?.[2]);
        if (!(CODES_BY_STATUS[response.status] ?? []).includes(value))
          problems.push(`code ${value} does not belong to ${response.status}`);
      } else if (!/"code":\d{4}|<code>\d{4}<\/code>/.test(text)) {
        problems.push('no code in the error envelope');
      }
      if (/at \w+ \(|node_modules|\.ts:\d+|SqliteError/.test(text))
        problems.push('leaks internals');
      if (problems.length > 0) failures.push(`${c.label}: ${problems.join('; ')}`);
    }
    expect(failures).toEqual([]);
    await service.app.engine.whenIdle();
    expect(databaseChecksum(service.app.context.dbs, new Set(['AUDIT', 'SIGN_IN_TRIES']))).toBe(
      before,
    );
    expect(readdirSync(join(service.dataDir, 'outbox'))).toEqual(outbox);
    expect(auditCount()).toBeGreaterThan(auditBefore);
  }, 120_000);
});
