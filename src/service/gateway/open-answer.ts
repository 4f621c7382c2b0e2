import { OPERATIONS, Transport, type OperationName } from '../../kit/index.ts';

/**
 * Sends one call of interfaces.md through the kit's Transport (its URL, form, headers and
 * errors) and hands back the answer unread, a redirect not followed. An upstream's answer,
 * up to a whole day of requests, is read as a stream (answer-text.ts) within `signal`,
 * whose time bound covers the body as well.
 */
export function openAnswer(
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  operation: OperationName,
  fields: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<Response> {
  // `signal` bounds the call; Transport's own timeout would end before the body is read.
  const transport = new Transport({ baseUrl, timeoutMs: 0, headers });
  return transport.open(OPERATIONS[operation], `/pipelineapi/${operation}/xml`, fields, undefined, {
    signal,
    redirect: 'manual',
  });
}
