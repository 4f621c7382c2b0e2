import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTestPipelines } from '../service/testing/pipelines.ts';
import { startService, type TestService } from '../service/testing/service.ts';
import type { VendorBehaviour } from '../service/testing/vendor/behaviour.ts';
import { startVendorService, VENDOR_VARIANTS } from '../service/testing/vendor/vendor-service.ts';
import { CONTRACT_WORDS, failureWordsOf, PipelineClient, type RequestDetail } from './index.ts';

// One rule for why a request failed, asked of real answers: our engine's, and a vendor's
// whose request-log states are only interfaces.md's Start, Process and Finish.

const LOGS = { requestLog: true, appLog: true } as const;
const failedIn =
  (words: readonly string[]) =>
  (status: string): boolean =>
    words.includes(status);

describe("a vendor's failure, wherever it writes the reason", () => {
  const variant = VENDOR_VARIANTS.kanto;
  const isFailed = failedIn([variant.status.failed]);

  /** A request of a vendor that writes its reasons as `failureLog` says, as the kit reads it. */
  const detailOf = async (
    failureLog: VendorBehaviour['failureLog'],
    filename: string,
    state: 'failed' | 'waiting',
  ): Promise<RequestDetail> => {
    const vendor = await startVendorService({ variant, behaviour: { failureLog } });
    try {
      vendor.addRequests('pl_1', 1, filename, state);
      const id = vendor.requests()[0]?.requestId as string;
      if (state === 'waiting') for (let step = 0; step < 4; step++) vendor.advance();
      const client = new PipelineClient({ baseUrl: vendor.url, apiKey: vendor.apiKey });
      return await client.requestDetail(id, LOGS, 'json');
    } finally {
      await vendor.close();
    }
  };

  it("is its log's closing entry's words, though that entry says Finish", async () => {
    const detail = await detailOf('closing', 'fail-0601.csv', 'waiting');
    expect(detail.status).toBe('Abort');
    expect(detail.requestLog?.at(-1)).toMatchObject({ event: 'End', status: 'Finish' });
    expect(failureWordsOf(detail, isFailed)).toBe('Input fail-0601.csv could not be parsed');
  });

  it('is the ERROR line of its application log', async () => {
    const detail = await detailOf('app-log', 'fail-0603.csv', 'failed');
    expect(detail.requestLog?.at(-1)?.message).toBe('');
    expect(failureWordsOf(detail, isFailed)).toBe('Input fail-0603.csv could not be parsed');
  });

  it('is none when its logs hold no reason: a progress line is no reason', async () => {
    const detail = await detailOf('none', 'fail-0602.csv', 'failed');
    expect(detail.status).toBe('Abort');
    // Its application log ends with a progress line of its own.
    expect(detail.appLog?.at(-1)?.message).toBe('Request End');
    expect(failureWordsOf(detail, isFailed)).toBeUndefined();
  });

  it('is none for a request that finished well', async () => {
    const detail = await detailOf('closing', 'daily.csv', 'waiting');
    expect(detail.status).toBe('Finish');
    expect(failureWordsOf(detail, isFailed)).toBeUndefined();
  });
});

describe("our engine's failure", () => {
  let service: TestService;
  let definitions: string;

  beforeAll(async () => {
    definitions = mkdtempSync(join(tmpdir(), 'failure-words-'));
    service = await startService({ pipelinesFile: writeTestPipelines(definitions) });
  });
  afterAll(async () => {
    await service.close();
    rmSync(definitions, { recursive: true, force: true });
  });

  it('is the message of its Error entry, not of the stage ends before it', async () => {
    // pl_1 casts id to an integer: "abc" fails its Filter.
    writeFileSync(join(service.dataDir, 'inbox', 'bad-ids.csv'), 'id,amount,note\nabc,50,x\n');
    const { requestId } = await service.client.exec('pl_1', 'bad-ids.csv');
    await service.app.engine.whenIdle();
    const detail = await service.client.requestDetail(requestId as string, LOGS, 'json');
    expect(detail.status).toBe('Error');
    const words = failureWordsOf(detail, failedIn(CONTRACT_WORDS.failed));
    expect(words).toContain('abc');
    expect(words).toBe(detail.requestLog?.find((l) => l.status === 'Error')?.message);
  });
});

describe('shapes the doubles do not write', () => {
  const isFailed = failedIn(['Error']);
  const log = (status: string, message: string, event = 'End') => ({ event, status, message });

  it("takes a cancelled request's own status for a failing one", () => {
    expect(
      failureWordsOf(
        { status: 'Stop', requestLog: [log('Start', 'Request started'), log('Stop', 'Cancelled')] },
        isFailed,
      ),
    ).toBe('Cancelled');
  });

  it('takes the last application-log line of an error type, in any case', () => {
    const appLog = [
      { type: 'ERROR', message: 'first' },
      { type: 'Fatal', message: '読み込みに失敗しました' },
      { type: 'INFO', message: 'Request End' },
    ];
    expect(failureWordsOf({ status: 'Error', requestLog: [], appLog }, isFailed)).toBe(
      '読み込みに失敗しました',
    );
    // One-letter levels (glog, logcat); a warning is no reason.
    const lettered = [
      { type: 'E', message: 'open failed: EACCES' },
      { type: 'W', message: 'retrying' },
      { type: 'I', message: 'Request End' },
    ];
    expect(failureWordsOf({ status: 'Error', appLog: lettered }, isFailed)).toBe(
      'open failed: EACCES',
    );
  });

  it("does not take a progress entry's words, nor a closing entry of a request that did not fail", () => {
    const requestLog = [log('Start', 'Request started', 'Start'), log('Process', '120 rows')];
    expect(failureWordsOf({ status: 'Error', requestLog }, isFailed)).toBeUndefined();
    // A vendor's own word for a good end, unknown to the caller: its closing words are no failure.
    expect(
      failureWordsOf({ status: 'Done', requestLog: [log('Finish', 'Request finished')] }, isFailed),
    ).toBeUndefined();
  });
});
