import { VERSION } from '../app.ts';
import { Conformance } from '../openapi/conformance.ts';
import { openApiDocument } from '../openapi/document.ts';

/*
 * Every answer the in-process test service gives to the unit and integration suites'
 * helpers (startService's fetch and keyed, and the kit client it hands out) is held to the
 * server's own /openapi.json, as the e2e suite holds the dashboard's (issue 16). A call whose
 * answer leaves the document rejects, so the test that made it fails, naming what is wrong.
 */

// One per test process: the document depends on nothing but the version.
let shared: Conformance | undefined;
const conformance = (): Conformance => (shared ??= new Conformance(openApiDocument(VERSION)));

/** Bodies that never end (or are not ours to read whole) are not held. */
const STREAMS = /^text\/event-stream/;

/** A document problem in an answer the test service gave. */
export class NonConformingAnswer extends Error {
  override readonly name = 'NonConformingAnswer';
}

/** The problems of one answer to a call on `base` (empty outside the document). */
export async function answerProblems(
  base: string,
  request: { url: string; method: string },
  response: Response,
): Promise<string[]> {
  const url = new URL(request.url);
  if (url.origin !== new URL(base).origin) return [];
  // HEAD and OPTIONS are the HTTP server's, not operations the document describes.
  const method = request.method.toUpperCase();
  if (method === 'HEAD' || method === 'OPTIONS') return [];
  const template = conformance().templateOf(url.pathname);
  if (!template) return [];
  if (STREAMS.test(response.headers.get('content-type') ?? '')) return [];
  return conformance().problems({ method, template }, response.clone());
}

/**
 * `fetch` for `base`, rejecting an answer that leaves /openapi.json. Each problem also goes
 * to `seen`, for a test that expected its call to fail anyway (startService's close tells).
 */
export function conformingFetch(base: string, seen: string[] = []): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const problems = await answerProblems(base, request, response);
    seen.push(...problems);
    if (problems.length > 0)
      throw new NonConformingAnswer(`the answer leaves /openapi.json:\n  ${problems.join('\n  ')}`);
    return response;
  };
}
