import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersCsv, writeTestPipelines } from '../../service/testing/pipelines.ts';
import {
  eventually,
  startService,
  TEST_API_KEY,
  type TestService,
} from '../../service/testing/service.ts';
import { HttpError, KIT_VERSION } from '../index.ts';
import { cli } from './pipelinectl.ts';

// pipelinectl by the conventions of the command lines people script every day, against
// the real service in this process: help and version, exit statuses, JSON errors, shell
// completion, detail --follow and options that are checked before anything is sent.

let service: TestService;
let finishedId: string;

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'ctl-defs-'))),
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), ordersCsv(10));
  finishedId = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
  await service.app.engine.whenIdle();
});

afterAll(async () => {
  await service.close();
});

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** pipelinectl as the command line runs it (cli), pointed at the test service. */
async function ctl(...args: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await cli(
    args,
    { PIPELINE_URL: service.url, PIPELINE_API_KEY: TEST_API_KEY },
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
  );
  return { code, stdout, stderr };
}

/** The requests of pl_1 today, as the service lists them. */
async function requestIdsOfPl1(): Promise<string[]> {
  const list = await service.client.requestList({ id: 'pl_1', pageSize: 1000 });
  return list.requests.map((r) => r.requestId);
}

describe('help, version and exit statuses', () => {
  it('prints the usage on stdout with exit 0 for --help, -h and help', async () => {
    for (const args of [['--help'], ['-h'], ['help'], ['list', '--help']]) {
      const ran = await ctl(...args);
      expect(ran).toMatchObject({ code: 0, stderr: '' });
      expect(ran.stdout).toMatch(/^Usage: pipelinectl <command>/);
      // The exit statuses are documented where a user looks.
      expect(ran.stdout).toMatch(/Exit status:\n {2}0 {2}done.*\n {2}1 {2}the service refused/);
      expect(ran.stdout).toMatch(/\n {2}2 {2}usage/);
    }
  });

  it('prints the usage on stderr with exit 2 when no command is given', async () => {
    const ran = await ctl();
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(/^pipelinectl: no command given\n\nUsage: pipelinectl/);
  });

  it('says what is wrong on stderr with exit 2 for an unknown command or option', async () => {
    const unknown = await ctl('lsit');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(
      "pipelinectl: unknown command lsit; see pipelinectl --help\nRun 'pipelinectl --help' for usage.\n",
    );
    const option = await ctl('list', '--jsn');
    expect(option).toMatchObject({ code: 2, stdout: '' });
    expect(option.stderr).toContain("Unknown option '--jsn'");
  });

  it("--version prints the kit package's version", async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(pkg.version).toBe('0.0.1');
    expect(KIT_VERSION).toBe(pkg.version);
    expect(await ctl('--version')).toEqual({ code: 0, stdout: '0.0.1\n', stderr: '' });
    // The version command is still the service's own.
    expect((await ctl('version')).stdout).toBe(`${service.app.context.version}\n`);
  });

  it('exits 1 when the service refuses, with its words on stderr', async () => {
    const ran = await ctl('retry', finishedId);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(/^pipelinectl: 409 1301 \S/);
  });
});

describe('--json errors', () => {
  it("prints a refusal as JSON on stderr with the service's code, status and own message", async () => {
    const refusal = await service.client.retry(finishedId).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(HttpError);
    const { serviceMessage } = refusal as HttpError;
    expect(serviceMessage).toBeTruthy();
    const ran = await ctl('retry', finishedId, '--json');
    expect(ran).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(ran.stderr)).toEqual({
      error: { kind: 'refused', code: 1301, status: 409, message: serviceMessage },
    });
    expect(ran.stderr.endsWith('}\n')).toBe(true);
  });

  it('prints usage mistakes as JSON with exit 2', async () => {
    for (const args of [
      ['list', '--timeout', 'abc', '--json'],
      ['--json'],
      ['list', '--json', '--nope'],
    ]) {
      const ran = await ctl(...args);
      expect(ran).toMatchObject({ code: 2, stdout: '' });
      const { error } = JSON.parse(ran.stderr) as { error: Record<string, unknown> };
      expect(error).toMatchObject({ kind: 'usage', code: null, status: null });
      expect(error.message).toEqual(expect.any(String));
    }
    const timeout = await ctl('list', '--timeout', 'abc', '--json');
    expect((JSON.parse(timeout.stderr) as { error: { message: string } }).error.message).toMatch(
      /^--timeout takes a whole number of milliseconds/,
    );
  });

  it('prints an unreachable service as JSON with exit 1', async () => {
    // A port of this process's own that nothing listens on any more.
    const { createServer } = await import('node:net');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const ran = await ctl('list', '--url', `http://127.0.0.1:${port}`, '--json');
    expect(ran).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(ran.stderr)).toMatchObject({
      error: { kind: 'network', code: null, status: null },
    });
  });
});

describe('numeric options', () => {
  const wrong: [string[], string][] = [
    [['list', '--timeout', 'abc'], '--timeout'],
    [['list', '--timeout=-5'], '--timeout'],
    [['list', '--timeout', '-5'], '--timeout'],
    [['list', '--timeout', '1.5'], '--timeout'],
    [['list', '--timeout', '99999999999'], '--timeout'],
    [['requests', '--page-size', '0'], '--page-size'],
    [['requests', '--page-size', 'ten'], '--page-size'],
    [['requests', '--index=-1'], '--index'],
    [['requests', '--index', '1e3'], '--index'],
    [['db', 'action', 'ORDERS', '--page-size', ''], '--page-size'],
    [['detail', 'x', '--follow', '--wait-timeout', 'soon'], '--wait-timeout'],
    [['detail', 'x', '--follow', '--wait-timeout=-1'], '--wait-timeout'],
    [['bulk-job', 'abc'], 'bulk-job'],
    [['bulk-job', '0'], 'bulk-job'],
  ];
  for (const [args, option] of wrong) {
    it(`refuses ${args.join(' ')} as a usage error naming ${option}`, async () => {
      const ran = await ctl(...args);
      expect(ran).toMatchObject({ code: 2, stdout: '' });
      expect(ran.stderr).toMatch(new RegExp(`^pipelinectl: .*${option}`));
    });
  }

  it('refuses a wrong --wait-timeout before exec starts anything', async () => {
    const before = await requestIdsOfPl1();
    const ran = await ctl('exec', 'pl_1', '--file', 'orders.csv', '--wait', '--wait-timeout', '-1');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('--wait-timeout');
    expect(await requestIdsOfPl1()).toEqual(before);
  });

  it('takes 0 where it means no limit', async () => {
    const ran = await ctl('list', '--timeout', '0', '--json');
    expect(ran.code).toBe(0);
    expect((JSON.parse(ran.stdout) as { id: string }[]).map((p) => p.id)).toContain('pl_1');
  });
});

describe('completion', () => {
  /** What bash completes for a command line whose last word is being typed. */
  async function bashCompletes(script: string, words: string[]): Promise<string[]> {
    const program = `${script}
COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
_pipelinectl
printf '%s\\n' "\${COMPREPLY[@]}"`;
    const { stdout } = await promisify(execFile)(
      'bash',
      ['--norc', '--noprofile', '-c', program, 'bash', ...words],
      { encoding: 'utf8' },
    );
    return stdout.split('\n').filter(Boolean);
  }

  it('prints a bash script that completes commands, their words and options', async () => {
    const ran = await ctl('completion', 'bash');
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const script = ran.stdout;
    expect(script).toContain('complete -F _pipelinectl pipelinectl');
    const commands = await bashCompletes(script, ['pipelinectl', '']);
    expect(commands).toEqual(
      expect.arrayContaining(['list', 'exec', 'detail', 'bulk-job', 'completion', 'help']),
    );
    expect(await bashCompletes(script, ['pipelinectl', 're'])).toEqual([
      'requests',
      'requeststats',
      'retry',
      'resume',
    ]);
    expect(await bashCompletes(script, ['pipelinectl', 'bulk', ''])).toEqual(['retry', 'cancel']);
    expect(await bashCompletes(script, ['pipelinectl', 'completion', ''])).toEqual(['bash', 'zsh']);
    // An option's value is not taken for the command.
    expect(await bashCompletes(script, ['pipelinectl', '--timeout', '5', 'db', ''])).toEqual([
      'system',
      'status',
      'action',
    ]);
    expect(await bashCompletes(script, ['pipelinectl', 'list', '--wire', ''])).toEqual([
      'xml',
      'json',
    ]);
    expect(await bashCompletes(script, ['pipelinectl', 'detail', 'x', '--fo'])).toEqual([
      '--follow',
    ]);
    expect(await bashCompletes(script, ['pipelinectl', 'list', '--url', ''])).toEqual([]);
  });

  it('prints a zsh script naming every command and option', async () => {
    const ran = await ctl('completion', 'zsh');
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout.startsWith('#compdef pipelinectl\n')).toBe(true);
    for (const command of ['list', 'exec', 'detail', 'bulk-job', 'completion', 'clear-cache'])
      expect(ran.stdout).toContain(`'${command}:`);
    for (const option of ['--url', '--json', '--follow', '--wait-timeout', '--page-size'])
      expect(ran.stdout).toContain(`${option}[`);
    expect(ran.stdout).toContain("'--wire[answer type asked for]:type:(xml json)'");
    expect(ran.stdout).toContain("'*--arg[");
    // Quotes in help text are closed and reopened, colons escaped: the words stay whole.
    expect(ran.stdout).toContain("'version:the service'\\''s version'");
    expect(ran.stdout).toContain("'--wait[exec\\: follow the request to its end]'");
    // Its quoting parses (zsh quotes as bash does; zsh itself is not on every machine).
    await promisify(execFile)('bash', ['-n', '-c', ran.stdout]);
  });

  it('refuses a shell it has no script for', async () => {
    const ran = await ctl('completion', 'fish');
    expect(ran).toMatchObject({ code: 2, stdout: '' });
    expect(ran.stderr).toMatch(/^pipelinectl: completion takes bash or zsh\n/);
  });
});

describe('detail --follow', () => {
  it("tails a request's logs while it waits and runs, and exits 0 when it finished", async () => {
    await service.client.suspend('pl_1');
    let id: string;
    try {
      id = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
    } catch (error) {
      await service.client.resume('pl_1');
      throw error;
    }
    let stdout = '';
    let stderr = '';
    const following = cli(
      ['detail', id, '--follow'],
      { PIPELINE_URL: service.url, PIPELINE_API_KEY: TEST_API_KEY },
      { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    );
    // It is still following a request that has not ended...
    await eventually(() => (stderr.includes(`${id} Wait`) ? true : undefined), 'a Wait look');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stdout).not.toContain('ended');
    // ...and follows it once it runs, to its end.
    await service.client.resume('pl_1');
    expect(await following).toBe(0);
    expect(stderr).toMatch(new RegExp(`${id} Finish`));
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(new RegExp(`^${id} ended Finish \\(Complete\\) at \\S`));
    expect(stdout).toContain('Filter kept');
    // Each log line once (a line tells its stage, event, status and action apart).
    const logLines = lines.slice(0, -1);
    expect(new Set(logLines).size).toBe(logLines.length);
    const detail = await service.client.requestDetail(id, { requestLog: true, appLog: true });
    expect(logLines.length).toBe((detail.requestLog?.length ?? 0) + (detail.appLog?.length ?? 0));
  });

  it('prints one JSON object a line with --json, the outcome last', async () => {
    const ran = await ctl('detail', finishedId, '--follow', '--json');
    expect(ran.code).toBe(0);
    const objects = ran.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(objects.at(-1)).toMatchObject({
      requestId: finishedId,
      outcome: 'ok',
      detail: { status: 'Finish' },
    });
    // Every line of both logs, once each.
    const detail = await service.client.requestDetail(
      finishedId,
      { requestLog: true, appLog: true },
      'xml',
    );
    expect(objects.slice(0, -1)).toEqual([
      ...(detail.requestLog ?? []).map((l) => ({ log: 'request', ...l })),
      ...(detail.appLog ?? []).map((l) => ({ log: 'app', ...l })),
    ]);
  });

  it('exits 1 for a request that ended failing, and for one the service does not know', async () => {
    const failedId = (await service.client.exec('pl_1', 'missing.csv')).requestId as string;
    await service.app.engine.whenIdle();
    const failed = await ctl('detail', failedId, '--follow');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(
      new RegExp(`\\n${failedId} ended Error.*: failed \\(ok is Finish\\)\\n$`),
    );
    const unknown = await ctl('detail', 'pl_1-20000101_00-000001', '--follow', '--json');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: { kind: 'refused' } });
  });

  it('stops at --wait-timeout with exit 3, and goes only with detail', async () => {
    await service.client.suspend('pl_1');
    try {
      const id = (await service.client.exec('pl_1', 'orders.csv')).requestId as string;
      const ran = await ctl('detail', id, '--follow', '--wait-timeout', '0.4');
      expect(ran.code).toBe(3);
      expect(ran.stdout).toMatch(new RegExp(`${id} has not ended after 0\\.4 s: Wait`));
    } finally {
      await service.client.resume('pl_1');
      await service.app.engine.whenIdle();
    }
    const misplaced = await ctl('list', '--follow');
    expect(misplaced).toMatchObject({ code: 2, stdout: '' });
    expect(misplaced.stderr).toMatch(/^pipelinectl: --follow goes with detail\n/);
  });
});
