// What failed at a service behind the gateway, in the user's language: the gateway's own
// failure worded from the catalogue (common `down.*`), its technical cause and the service's
// own words kept as written, as text. No hooks but the translation's, no browser APIs.

import type { TFunction } from 'i18next';
import { Trans, useTranslation } from 'react-i18next';
import { readUpstreamMessage, type FailureTold, type UpstreamMessage } from './upstream-message.ts';

/** Text the service or its connection wrote: shown as text, never as markup, never translated. */
function Verbatim({ words, testId }: { words: string; testId: string }) {
  return (
    <span data-testid={testId} translate="no" className="font-mono text-xs">
      {words}
    </span>
  );
}

/** The catalogue's texts of what failed (common `down.*`). */
type DownKey =
  | 'down.said'
  | 'down.cause'
  | 'down.timedOut'
  | 'down.midway'
  | 'down.failed'
  | 'down.failedHttp'
  | 'down.keyRefused'
  | 'down.serviceSaid'
  | 'down.busy'
  | 'down.redirect'
  | 'down.redirectTo'
  | 'down.tooLarge'
  | 'down.tooLargeRead'
  | 'down.valueTooLarge'
  | 'down.valueElement'
  | 'down.unreadableXml'
  | 'down.notXml'
  | 'down.began'
  | 'down.refused'
  | 'down.refusedSilently';

/**
 * One line of what failed: a catalogue text, holding at its `<cause/>` (a technical cause)
 * or `<words/>` (what the service said) a text kept as written, never passed to the
 * catalogue's interpolation.
 */
interface FailureLine {
  readonly key: DownKey;
  readonly values?: Readonly<Record<string, string | number>>;
  readonly verbatim?: string;
}

/** The lines saying what failed: the first the failure, the next what the service said. */
function failureLines(read: UpstreamMessage): FailureLine[] {
  const said = (words: string): FailureLine[] =>
    words ? [{ key: 'down.serviceSaid', verbatim: words }] : [];
  switch (read.kind) {
    case 'unreachable':
      return [{ key: 'down.cause', verbatim: read.error }];
    case 'timeout':
      return [{ key: 'down.timedOut', values: { seconds: read.seconds } }];
    case 'midway':
      return [{ key: 'down.midway' }];
    case 'failed':
      return [
        read.httpStatus === null
          ? { key: 'down.failed' }
          : { key: 'down.failedHttp', values: { status: read.httpStatus } },
        ...said(read.words),
      ];
    case 'keyRefused':
      return [{ key: 'down.keyRefused', values: { status: read.httpStatus } }, ...said(read.words)];
    case 'busy':
      return [
        { key: 'down.busy', values: { status: read.httpStatus, count: read.attempts } },
        ...said(read.words),
      ];
    case 'redirect':
      return [
        { key: 'down.redirect', values: { status: read.httpStatus } },
        ...(read.location ? [{ key: 'down.redirectTo', verbatim: read.location } as const] : []),
      ];
    case 'tooLarge':
      return [
        {
          key: read.declared ? 'down.tooLarge' : 'down.tooLargeRead',
          values: { size: read.mebibytes.toFixed(1), limit: read.boundMebibytes },
        },
      ];
    case 'valueTooLarge':
      return [
        {
          key: 'down.valueTooLarge',
          values: { characters: read.characters, limit: read.boundCharacters },
        },
        // The element is the service's name for it: kept as written.
        { key: 'down.valueElement', verbatim: read.element },
      ];
    case 'unreadableXml':
      return [
        { key: 'down.unreadableXml' },
        ...(read.detail ? [{ key: 'down.cause', verbatim: read.detail } as const] : []),
      ];
    case 'notXml':
      return [
        { key: 'down.notXml' },
        ...(read.start ? [{ key: 'down.began', verbatim: read.start } as const] : []),
      ];
    case 'refused':
      return [
        read.httpStatus === null
          ? { key: 'down.refusedSilently' }
          : { key: 'down.refused', values: { status: read.httpStatus } },
      ];
    case 'said':
      return [{ key: 'down.said', verbatim: read.words }];
  }
}

function Line({ line }: { line: FailureLine }) {
  const { t } = useTranslation();
  const words = line.verbatim ?? '';
  return (
    <Trans
      t={t}
      i18nKey={line.key}
      values={line.values}
      components={{
        cause: <Verbatim words={words} testId="failure-cause" />,
        words: <Verbatim words={words} testId="service-words" />,
      }}
    />
  );
}

/** What `WhatFailed` tells, and of what: the message and what the server told beside it. */
export type WhatFailedProps = {
  /** Why, as the server said it: an error answer's Message, or a list's message. */
  readonly message: string;
  /** The service's name (not its title): the gateway's sentences name it so. */
  readonly name: string;
} & FailureTold;

/**
 * What failed, as plain text in the user's language (a `title`, an accessible name): the
 * same words `WhatFailed` shows, the service's own in them as written.
 */
export function failureText(t: TFunction, { message, name, ...told }: WhatFailedProps): string {
  return failureLines(readUpstreamMessage(message, name, told))
    .map((line) => {
      const text: string = t(line.key, { ...line.values });
      return text.split(/<(?:cause|words)\/>/).join(line.verbatim ?? '');
    })
    .join(' ');
}

/**
 * Why a service behind the gateway is not answering, for a sentence after its name: the
 * gateway's own failure (shared/service-down.ts, readUpstreamMessage) in the user's language,
 * its technical cause kept as written; the service's own words verbatim. Give `cause` for a
 * message of the services list or the fleet (the server's data), `code` for an error answer's
 * Message (read by its shape under its code).
 *
 * @example
 * <WhatFailed message={service.message} name={service.name} cause={service.cause} />
 * <WhatFailed message={failure.message} name={service.name} code={failure.code} />
 * // en: "Cause: ECONNREFUSED"   ja: 「原因：ECONNREFUSED」
 */
export function WhatFailed({ message, name, ...told }: WhatFailedProps) {
  const read = readUpstreamMessage(message, name, told);
  return (
    <span data-kind={read.kind}>
      {failureLines(read).map((line, i) =>
        i === 0 ? (
          <Line key={i} line={line} />
        ) : (
          // On a line of its own: no space to get wrong between two languages' sentences.
          <span key={i} className="block">
            <Line line={line} />
          </span>
        ),
      )}
    </span>
  );
}
