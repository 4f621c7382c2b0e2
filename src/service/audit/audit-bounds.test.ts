import { statSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../auth/users.ts';
import { ManualClock } from '../clock.ts';
import { appendAudit } from '../db/system/audit.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { ENTRY_BYTES, TRUNCATION_NOTE } from '../db/system/audit-bounds.ts';
import { REFUSALS_OPERATION } from './audit-log.ts';
import { PER_ADDRESS } from './refusals.ts';

// An audit that stays useful under attack (issue 24, item 4): whatever a request sends, an
// entry stays within 4 KB and says what it lost; secrets by name are redacted; strangers'
// refusals are short and, beyond a rate per address, counted; an answer of /mcapi/audit is
// bounded in bytes whatever its page size; the CSV export streams a filtered range.

const ADMIN_PASSWORD = 'admin-password-bounds';
const PASSWORD = 'operator-password-1';
const FORM = 'application/x-www-form-urlencoded; charset=UTF-8';
/** Largest answer of /mcapi/audit, in bytes of entries (routes.ts AUDIT_ANSWER_BYTES). */
const ANSWER_BYTES = 1024 * 1024;

interface Entry {
  time: string;
  day: string;
  userName: string | null;
  via: string;
  address: string;
  operation: string;
  parameters: Record<string, string>;
  httpStatus: number;
  message: string;
  truncated: boolean;
}

interface Page {
  status: number;
  bytes: number;
  total: number;
  next: number;
  entries: Entry[];
}

let service: TestService;
let clock: ManualClock;
let admin: string;

async function signIn(userName: string, password: string): Promise<string> {
  const response = await service.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': FORM },
    body: new URLSearchParams({ userName, password }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
}

async function audit(query: Record<string, string>, session = admin): Promise<Page> {
  const response = await service.fetch(`/mcapi/audit?${new URLSearchParams(query).toString()}`, {
    headers: { 'X-As-SessionId': session },
  });
  const text = await response.text();
  const body = JSON.parse(text) as {
    result: { data?: { total: number; next: number; entries: Entry[] } };
  };
  return {
    status: response.status,
    bytes: Buffer.byteLength(text),
    total: body.result.data?.total ?? 0,
    next: body.result.data?.next ?? -1,
    entries: body.result.data?.entries ?? [],
  };
}

/** Bytes of the system database once its write-ahead log is folded in. */
function systemDbBytes(): number {
  service.app.context.dbs.system.pragma('wal_checkpoint(TRUNCATE)');
  const file = join(service.dataDir, 'system.db');
  return statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
}

const entryBytes = (entry: Entry) => Buffer.byteLength(JSON.stringify(entry));

beforeAll(async () => {
  // One minute for the whole flood: the per-address rate is counted by the minute.
  clock = new ManualClock(Date.parse('2026-11-22T09:00:05Z'));
  service = await startService({ clock, adminPassword: ADMIN_PASSWORD });
  await addUser(service.app.context.shared, 'olivia', PASSWORD, 'operator', 'now');
  admin = await signIn('admin', ADMIN_PASSWORD);
});

afterAll(async () => {
  await service.close();
});

describe('an audit no one can flood', () => {
  it('200 unauthenticated calls with a 1 MB form each grow system.db by little and leave a summary', async () => {
    // About 1 MB (under the 1 MiB body limit): 4,000 fields of 250 characters.
    const big = Array.from({ length: 4000 }, (_, i) => `f${i}=${'x'.repeat(250)}`).join('&');
    expect(big.length).toBeGreaterThan(1_000_000);
    expect(big.length).toBeLessThan(1024 * 1024);
    const before = systemDbBytes();
    const statuses: number[] = [];
    for (let round = 0; round < 50; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          service.fetch('/pipelineapi/exec/xml', {
            method: 'POST',
            headers: { 'Content-Type': FORM },
            body: `pipelineid=pl_1&filename=x.csv&${big}`,
          }),
        ),
      );
      for (const answer of answers) {
        statuses.push(answer.status);
        await answer.body?.cancel();
      }
    }
    expect(new Set(statuses)).toEqual(new Set([401]));
    const grown = systemDbBytes() - before;
    expect(grown).toBeLessThan(2 * 1024 * 1024);

    const refused = await audit({ operation: 'exec', pagesize: '1000' });
    // The first PER_ADDRESS of the minute one by one, short and marked truncated.
    expect(refused.total).toBe(PER_ADDRESS);
    for (const entry of refused.entries) {
      expect(entry).toMatchObject({ via: 'none', httpStatus: 401, truncated: true });
      expect(entryBytes(entry)).toBeLessThanOrEqual(1024);
      expect(entry.parameters).toMatchObject({ pipelineid: 'pl_1', filename: 'x.csv' });
      expect(entry.parameters[TRUNCATION_NOTE]).toMatch(/^\d of 4002 parameters kept; /);
    }
    // The other 180 in one summary entry for the address and minute.
    const summaries = await audit({ operation: REFUSALS_OPERATION });
    expect(summaries.entries).toHaveLength(1);
    expect(summaries.entries[0]).toMatchObject({
      address: '127.0.0.1',
      via: 'none',
      userName: null,
      httpStatus: 401,
      parameters: { count: String(200 - PER_ADDRESS), operations: `exec ${200 - PER_ADDRESS}` },
      truncated: false,
    });
    expect(summaries.entries[0]?.message).toMatch(/^180 more calls refused without valid/);

    // The next minute starts over: one by one again.
    clock.advance(60_000);
    await service.fetch('/pipelineapi/exec/xml', {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: 'pipelineid=pl_1&filename=y.csv',
    });
    expect((await audit({ operation: 'exec' })).total).toBe(PER_ADDRESS + 1);
  }, 120_000);

  it('bounds an entry of many and long parameters to 4 KB, marked truncated', async () => {
    const fields = new URLSearchParams({ pipelineid: 'pl_1', filename: 'x.csv' });
    for (let i = 0; i < 500; i += 1) fields.append(`${'n'.repeat(300)}${i}`, 'v'.repeat(600));
    fields.append('tail', 'é😀'.repeat(2000));
    const response = await service.keyed('/pipelineapi/exec/json', {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: fields.toString(),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const [entry] = (await audit({ operation: 'exec' })).entries.filter((e) => e.via === 'key');
    expect(entry).toBeDefined();
    const shown = entry as Entry;
    expect(entryBytes(shown)).toBeLessThanOrEqual(ENTRY_BYTES);
    expect(shown.truncated).toBe(true);
    expect(shown.parameters).toMatchObject({ pipelineid: 'pl_1', filename: 'x.csv' });
    const note = shown.parameters[TRUNCATION_NOTE] ?? '';
    expect(note).toMatch(/ of 503 parameters kept/);
    expect(note).toContain('names cut at 64 characters');
    expect(note).toContain('values cut at 256 characters');
    for (const [name, value] of Object.entries(shown.parameters)) {
      expect(name.length).toBeLessThanOrEqual(64);
      if (name !== TRUNCATION_NOTE) expect(value.length).toBeLessThanOrEqual(256);
    }
    // An entry within its bounds is kept whole, and says nothing was lost.
    const small = (await audit({ operation: 'exec', pagesize: '1000' })).entries.find(
      (e) => e.parameters.filename === 'y.csv',
    );
    expect(small).toMatchObject({
      truncated: false,
      parameters: { pipelineid: 'pl_1', filename: 'y.csv' },
    });
    expect(Object.keys(small?.parameters ?? {})).toEqual(['pipelineid', 'filename']);
  });

  it('redacts secrets by name in any case, keeping the name', async () => {
    const secrets = {
      Password: 'pw-value-1a2b',
      apiToken: 'token-value-3c4d',
      CLIENT_SECRET: 'secret-value-5e6f',
      sessionId: 'session-value-7a8b',
      'X-PipelineWebApi-Key': 'key-value-9c0d',
    };
    const response = await service.fetch('/pipelineapi/suspend/json', {
      method: 'PUT',
      headers: { 'Content-Type': FORM, 'X-Pipelinewebapi': TEST_API_KEY },
      body: new URLSearchParams({ pipelineid: 'pl_9', ...secrets }).toString(),
    });
    expect(response.status).toBe(404);
    const page = await audit({ operation: 'suspend' });
    expect(page.entries[0]?.parameters).toEqual({
      pipelineid: 'pl_9',
      Password: '[redacted]',
      apiToken: '[redacted]',
      CLIENT_SECRET: '[redacted]',
      sessionId: '[redacted]',
      'X-PipelineWebApi-Key': '[redacted]',
    });
    const everything = JSON.stringify((await audit({ pagesize: '1000' })).entries);
    for (const value of [...Object.values(secrets), TEST_API_KEY, ADMIN_PASSWORD, admin])
      expect(everything).not.toContain(value);
  });

  it('redacts the key header named as a field and a personal token under any name, in the entry and its export (issue 39)', async () => {
    const token = `pdt_${'T'.repeat(43)}`;
    // In a query string such a call is refused before anything else (http/query-credentials.ts).
    const inQuery = await service.fetch(
      `/pipelineapi/suspend/json?pipelineid=pl_8&X-Pipelinewebapi=${token}`,
      { method: 'PUT', headers: { 'X-Pipelinewebapi': TEST_API_KEY } },
    );
    expect(inQuery.status).toBe(400);
    // In a form body it is only a field, kept out of the entry all the same.
    const response = await service.fetch('/pipelineapi/suspend/json', {
      method: 'PUT',
      headers: { 'Content-Type': FORM, 'X-Pipelinewebapi': TEST_API_KEY },
      body: `pipelineid=pl_8&X-Pipelinewebapi=${token}&q=${token}&note=see%20${token}`,
    });
    expect(response.status).toBe(404);
    const page = await audit({ operation: 'suspend' });
    expect(page.entries[0]?.parameters).toEqual({
      pipelineid: 'pl_8',
      'X-Pipelinewebapi': '[redacted]',
      q: '[redacted]',
      note: '[redacted]',
    });
    const csv = await service.fetch('/mcapi/audit/export?operation=suspend', {
      headers: { 'X-As-SessionId': admin },
    });
    expect(csv.status).toBe(200);
    const text = await csv.text();
    expect(text).toContain('pl_8');
    expect(text).not.toContain(token.slice(4));
  });

  it('answers a page of 1,000 within 1 MiB, even of entries written before the bounds, and says where the rest begins', async () => {
    // Entries as the audit wrote them before it bounded them: 1,100 of 6 KB to 12 KB.
    await service.app.context.shared.transaction(async (db) => {
      for (let i = 0; i < 1100; i += 1) {
        const parameters = Object.fromEntries(
          Array.from({ length: i % 2 ? 24 : 48 }, (_, n) => [`p${n}`, 'y'.repeat(250)]),
        );
        await appendAudit(db, {
          time: '2026-11-20T08:00:00.000Z',
          day: '20261120',
          userName: null,
          via: 'none',
          address: '192.0.2.7',
          service: 'local',
          operation: 'legacy',
          parameters,
          httpStatus: 401,
          status: 'Error',
          message: `legacy ${String(i).padStart(4, '0')}`,
          requestId: null,
        });
      }
    });
    const first = await audit({ operation: 'legacy', pagesize: '1000' });
    expect(first.status).toBe(200);
    expect(first.total).toBe(1100);
    expect(first.bytes).toBeLessThan(ANSWER_BYTES + 1024);
    expect(first.entries.length).toBeGreaterThan(200);
    expect(first.entries.length).toBeLessThan(1000);
    for (const entry of first.entries) {
      expect(entryBytes(entry)).toBeLessThanOrEqual(ENTRY_BYTES);
      expect(entry.truncated).toBe(true);
    }
    expect(first.next).toBe(first.entries.length);
    // Following `next` reads every entry once, newest first.
    const messages = first.entries.map((e) => e.message);
    let next = first.next;
    while (next !== -1) {
      const page = await audit({ operation: 'legacy', pagesize: '1000', index: String(next) });
      expect(page.bytes).toBeLessThan(ANSWER_BYTES + 1024);
      messages.push(...page.entries.map((e) => e.message));
      next = page.next;
    }
    expect(messages).toEqual(
      Array.from({ length: 1100 }, (_, i) => `legacy ${String(1099 - i).padStart(4, '0')}`),
    );
    // A small page is bounded by its size: 10 entries of at most 4 KB.
    const ten = await audit({ operation: 'legacy', pagesize: '10' });
    expect(ten.entries).toHaveLength(10);
    expect(ten.bytes).toBeLessThan(10 * ENTRY_BYTES + 1024);
  });
});

describe('the audit as CSV', () => {
  /** Reads the export, counting the chunks it came in. */
  async function exportCsv(
    query: Record<string, string>,
    session = admin,
  ): Promise<{ status: number; type: string; chunks: number; text: string; response: Response }> {
    const response = await service.fetch(
      `/mcapi/audit/export?${new URLSearchParams(query).toString()}`,
      { headers: { 'X-As-SessionId': session } },
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      text += decoder.decode(value, { stream: true });
    }
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      chunks,
      text: text + decoder.decode(),
      response,
    };
  }

  it('streams a filtered range, quoted as RFC 4180, formulas defused', async () => {
    // A day of its own with names a spreadsheet would run, and names that need quotes.
    clock.advance(86_400_000);
    admin = await signIn('admin', ADMIN_PASSWORD);
    const names = [
      "=cmd|' /C calc'!A0",
      '+1+2',
      '-2+3',
      '@SUM(A1:A2)',
      '\t=1+1',
      'plain, "quoted"\nand on',
      '-42',
    ];
    for (const userName of names) {
      const refused = await service.fetch('/mcapi/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': FORM },
        body: new URLSearchParams({ userName, password: 'not-the-password' }).toString(),
      });
      // A name is one line: one holding a tab or a line feed is refused as such (issue 39,
      // item 4), and audited all the same, its control characters written out.
      expect(refused.status).toBe(/[\t\n]/.test(userName) ? 400 : 403);
    }
    const day = '20261123';
    const csv = await exportCsv({ from: day, to: day, operation: 'mc.login' });
    expect(csv.status).toBe(200);
    expect(csv.type).toBe('text/csv; charset=UTF-8');
    expect(csv.response.headers.get('content-disposition')).toBe(
      `attachment; filename="audit-${day}-${day}.csv"`,
    );
    expect(csv.text.endsWith('\r\n')).toBe(true);
    const rows = Papa.parse<string[]>(csv.text.trimEnd(), { newline: '\r\n' }).data;
    expect(rows[0]).toEqual([
      'time',
      'userName',
      'via',
      'address',
      'service',
      'operation',
      'parameters',
      'httpStatus',
      'status',
      'message',
      'requestId',
      'truncated',
    ]);
    // Newest first (the administrator's own sign-in of the day oldest); a formula gets a
    // leading ', a plain number stays one.
    expect(rows.slice(1).map((r) => r[1])).toEqual(
      [
        'admin',
        "'=cmd|' /C calc'!A0",
        "'+1+2",
        "'-2+3",
        "'@SUM(A1:A2)",
        '\\u0009=1+1',
        'plain, "quoted"\\u000aand on',
        '-42',
      ].reverse(),
    );
    expect(csv.text).toContain('"plain, ""quoted""\\u000aand on"');
    expect(csv.text).toContain(`"'=cmd|' /C calc'!A0"`);
    for (const row of rows.slice(1, -1)) {
      expect(row).toHaveLength(12);
      expect(row[2]).toBe('none');
      expect(row[5]).toBe('mc.login');
      expect(row[7]).toBe(row[1]?.includes('\\u00') ? '400' : '403');
      expect(JSON.parse(row[6] as string)).toMatchObject({ password: '[redacted]' });
    }
    expect(csv.text).not.toContain('not-the-password');
  });

  it('reads a long range in batches as the client takes it, the same entries as the pages', async () => {
    const all = await exportCsv({});
    expect(all.status).toBe(200);
    expect(all.response.headers.get('content-length')).toBeNull();
    // Header, then batches of 500: more than one chunk reached the client.
    expect(all.chunks).toBeGreaterThan(2);
    const rows = Papa.parse<string[]>(all.text.trimEnd(), { newline: '\r\n' }).data.slice(1);
    const total = (await audit({})).total;
    expect(rows).toHaveLength(total);
    const legacy = rows.filter((r) => r[5] === 'legacy');
    expect(legacy).toHaveLength(1100);
    expect(legacy.map((r) => r[9])).toEqual(
      Array.from({ length: 1100 }, (_, i) => `legacy ${String(1099 - i).padStart(4, '0')}`),
    );
    expect(legacy.every((r) => r[11] === 'true')).toBe(true);
    // Filters as /mcapi/audit's: one operation, one day.
    const exec = await exportCsv({ operation: 'exec', to: '20261122' });
    const execRows = Papa.parse<string[]>(exec.text.trimEnd(), { newline: '\r\n' }).data.slice(1);
    expect(execRows).toHaveLength((await audit({ operation: 'exec', to: '20261122' })).total);
    expect(execRows.every((r) => r[5] === 'exec')).toBe(true);
  });

  it('is for administrators only, and refuses a bad filter naming it', async () => {
    const olivia = await signIn('olivia', PASSWORD);
    const operator = await service.fetch('/mcapi/audit/export', {
      headers: { 'X-As-SessionId': olivia },
    });
    expect(operator.status).toBe(403);
    expect(((await operator.json()) as { result: { code: number } }).result.code).toBe(3003);
    const nobody = await service.fetch('/mcapi/audit/export');
    expect(nobody.status).toBe(401);
    const bad = await service.fetch('/mcapi/audit/export?from=2026-11-22', {
      headers: { 'X-As-SessionId': admin },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      result: { code: 2003, message: 'Parameter from must be a day as yyyymmdd.' },
    });
    const twice = await service.fetch('/mcapi/audit/export?user=a&user=b', {
      headers: { 'X-As-SessionId': admin },
    });
    expect(twice.status).toBe(400);
  });
});
