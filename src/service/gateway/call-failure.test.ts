import { describe, expect, it } from 'vitest';
import { ErrorCode, HttpError, NetworkError, ParseError, TimeoutError } from '../../kit/index.ts';
import { callFailure, type CallFacts } from './call-failure.ts';

// The one mapper from the kit's errors of a call to an upstream to our contract's answer
// (code, cause or the service's own words). Whole calls through the vendor double are
// upstream-faults.test.ts's and gateway.test.ts's; here, each branch of the mapping.

const facts: CallFacts = { operation: 'requestdetail', timeoutSeconds: 15 };
const refusal = (status: number, words = '') =>
  new HttpError(status, 'GET', 'http://vendor/pipelineapi/requestdetail/xml', undefined, words, '');

describe('the failure of a call to an upstream', () => {
  it('names an unreachable service by the code of its connection', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(callFailure(new NetworkError('GET', 'http://vendor', refused), facts)).toEqual({
      httpStatus: 502,
      code: ErrorCode.UpstreamFailed,
      cause: { kind: 'unreachable', error: 'ECONNREFUSED' },
    });
  });

  it('tells a timeout from a connection lost midway', () => {
    const aborted = new DOMException('', 'TimeoutError');
    const timeout = {
      httpStatus: 504,
      code: ErrorCode.UpstreamTimeout,
      cause: { kind: 'timeout', seconds: 15 },
    };
    expect(callFailure(new NetworkError('GET', 'http://vendor', aborted), facts)).toEqual(timeout);
    expect(callFailure(new TimeoutError('GET', 'http://vendor', 15_000), facts)).toEqual(timeout);
    expect(callFailure(new Error('terminated'), { ...facts, timedOut: true })).toEqual(timeout);
    expect(callFailure(new Error('terminated'), { ...facts, midway: true })).toEqual({
      httpStatus: 504,
      code: ErrorCode.UpstreamTimeout,
      cause: { kind: 'midway' },
    });
  });

  it('maps a refusal by its status, passing the service words on as they are', () => {
    expect(callFailure(refusal(404, 'no such request'), facts)).toEqual({
      httpStatus: 404,
      code: ErrorCode.RequestNotFound,
      words: 'no such request',
    });
    expect(callFailure(refusal(404), { ...facts, operation: 'statusdb' })).toEqual({
      httpStatus: 404,
      code: ErrorCode.TableNotFound,
      cause: { kind: 'refused', httpStatus: 404 },
    });
    expect(callFailure(refusal(422, 'bad date'), facts)).toMatchObject({
      httpStatus: 400,
      code: ErrorCode.BadParameter,
    });
    expect(callFailure(refusal(403, 'key?'), facts)).toEqual({
      httpStatus: 502,
      code: ErrorCode.UpstreamFailed,
      cause: { kind: 'keyRefused', httpStatus: 403, words: 'key?' },
    });
    expect(callFailure(refusal(500, 'oops'), facts)).toMatchObject({
      cause: { kind: 'failed', httpStatus: 500, words: 'oops' },
    });
    expect(callFailure(refusal(302), { ...facts, location: '/login' })).toMatchObject({
      cause: { kind: 'redirect', httpStatus: 302, location: '/login' },
    });
    expect(callFailure(refusal(503, 'busy'), { ...facts, attempts: 3 })).toMatchObject({
      cause: { kind: 'busy', httpStatus: 503, attempts: 3, words: 'busy' },
    });
  });

  it('maps a refusal inside a 2xx answer by what the call was and what the service said', () => {
    expect(callFailure(refusal(200, 'running'), { ...facts, operation: 'resume' })).toEqual({
      httpStatus: 409,
      code: ErrorCode.StateConflict,
      words: 'running',
    });
    expect(callFailure(refusal(200), { ...facts, answerStatus: 'Error' })).toEqual({
      httpStatus: 400,
      code: ErrorCode.BadParameter,
      cause: { kind: 'refused', httpStatus: null },
    });
    expect(callFailure(refusal(200, 'db down'), { ...facts, answerStatus: 'SystemError' })).toEqual(
      {
        httpStatus: 502,
        code: ErrorCode.UpstreamFailed,
        cause: { kind: 'failed', httpStatus: null, words: 'db down' },
      },
    );
  });

  it('tells XML that breaks from an answer that is no XML at all', () => {
    expect(callFailure(new ParseError('unexpected close tag', '<a></b>'), facts)).toMatchObject({
      cause: { kind: 'unreadableXml', detail: 'unexpected close tag' },
    });
    expect(
      callFailure(new ParseError('text outside root', '<!-- x --> Service <b>down</b>'), facts),
    ).toMatchObject({ cause: { kind: 'unreadableXml' } });
    expect(callFailure(new ParseError('no element', 'Service down'), facts)).toMatchObject({
      cause: { kind: 'notXml', start: 'Service down' },
    });
  });
});
