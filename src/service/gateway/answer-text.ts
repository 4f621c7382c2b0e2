import { TextDecoder } from 'node:util';
import { chooseCharset, SNIFF_BYTES } from '../../kit/charset.ts';
import type { Redactor } from './redactor.ts';

// An upstream's answer read as a stream of text (the kit's Transport reads a body whole,
// and a vendor's day can be hundreds of MiB): decoded by the charset it states, its secrets
// cut out as it goes, and bounded in size.

/** What reading answers has shown of an upstream (its WireFacts, upstream.ts). */
export interface AnswersSeen {
  /** The charset its last answer was read in, and where that was stated. */
  charset: string | null;
  charsetFrom: string | null;
  largestAnswerBytes: number;
  compressed: boolean;
}

export interface AnswerTextOptions {
  /** Bytes read at most: beyond, the answer is refused (`refuse`) or cut (`cut`). */
  readonly limit: number;
  readonly beyond: 'refuse' | 'cut';
  readonly redactor: Redactor;
  /** Updated as the answer is read. */
  readonly seen: AnswersSeen;
  /** The error of an answer beyond the limit: as its Content-Length declared, or as read. */
  readonly tooLarge: (bytes: number, declared: boolean) => Error;
  /** The error of an answer whose reading failed (the connection lost, the time bound). */
  readonly lost: (error: unknown) => Error;
}

/**
 * The answer's bytes as decoded, redacted text chunks, bounded by `limit` bytes: beyond it
 * the answer is refused (`tooLarge`) or cut (a refusal's words need no more).
 */
export async function* answerText(
  response: Response,
  controller: AbortController,
  options: AnswerTextOptions,
): AsyncGenerator<string> {
  const { limit, beyond, seen } = options;
  const declared = Number(response.headers.get('content-length'));
  if (beyond === 'refuse' && declared > limit) {
    controller.abort();
    throw options.tooLarge(declared, true);
  }
  if (response.headers.get('content-encoding')) seen.compressed = true;
  const reader = response.body?.getReader();
  if (!reader) return;
  const redacting = options.redactor.stream();
  let decoder: TextDecoder | undefined;
  let head: Uint8Array = new Uint8Array(0);
  let bytes = 0;
  const contentType = response.headers.get('content-type') ?? '';
  const decoderFor = (start: Uint8Array): TextDecoder => {
    const chosen = chooseCharset(contentType, start);
    seen.charset = chosen.charset;
    seen.charsetFrom = chosen.from;
    return new TextDecoder(chosen.charset);
  };
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw options.lost(error);
      }
      if (chunk.done) break;
      bytes += chunk.value.length;
      if (bytes > limit) {
        controller.abort();
        if (beyond === 'refuse') throw options.tooLarge(bytes, false);
        break;
      }
      let piece: Uint8Array = chunk.value;
      if (!decoder) {
        // The charset is stated in the first bytes, if at all: wait for enough of them.
        head = concat(head, piece);
        if (head.length < SNIFF_BYTES) continue;
        decoder = decoderFor(head);
        piece = head;
      }
      const text = redacting.push(decoder.decode(piece, { stream: true }));
      if (text) yield text;
    }
    // A short answer is still all in `head`; a long one has its decoder's tail to flush.
    const last = decoder ? decoder.decode() : decoderFor(head).decode(head);
    const tail = redacting.push(last);
    if (tail) yield tail;
    const rest = redacting.flush();
    if (rest) yield rest;
  } finally {
    seen.largestAnswerBytes = Math.max(seen.largestAnswerBytes, bytes);
    reader.releaseLock();
  }
}

/** The whole text of an answer within `options.limit`, '' for what could not be read. */
export async function cutText(
  response: Response,
  controller: AbortController,
  options: AnswerTextOptions,
): Promise<string> {
  let body = '';
  try {
    for await (const text of answerText(response, controller, options)) body += text;
  } catch {
    // Words are a courtesy: a refusal cut off midway is still a refusal.
  }
  return body;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
