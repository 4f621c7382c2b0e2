import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { ServiceInfo } from '../../kit/index.ts';
import { knownTimeZone } from '../clock.ts';
import {
  checkWords,
  isStatusWord,
  resolveStatuses,
  STATUS_CLASSES,
  StatusWordsError,
  type StatusClass,
  type StatusWords,
} from './status-semantics.ts';

/**
 * One pipeline service the server stands in front of (contract section 7). Its id and name
 * are the services list's (the kit's type), so the file and the answer cannot drift apart.
 */
export interface UpstreamEntry extends Pick<ServiceInfo, 'id' | 'name'> {
  readonly url: string;
  readonly apiKey: string;
  readonly label?: string | undefined;
  readonly color?: string | undefined;
  /** Seconds between rounds of the poller that keeps this service's request index. */
  readonly pollSeconds?: number | undefined;
  /** Receivers of this service's notifications, beside --notify's (contract section 9). */
  readonly notify?: readonly string[] | undefined;
  /** The service's words for a request that ended failing (notified); `Error` by default. */
  readonly failedStatuses?: readonly string[] | undefined;
  /**
   * What its other status words mean (waiting, running, final, retryable, cancellable, and
   * failed when failedStatuses is not given); classes not given take their defaults.
   */
  readonly statuses?: StatusWords | undefined;
  /** The service's time zone (IANA name), when its answers alone cannot tell it. */
  readonly zone?: string | undefined;
  /**
   * Whether the poller asks finished requests' file names (one requestdetail each, within
   * the evidence budget) so that a search finds them by file; true unless turned off.
   */
  readonly fileNames?: boolean | undefined;
  readonly embedded?: false;
}

/** The embedded engine as an entry of the list (`{ id: local, embedded: true }`). */
export interface EmbeddedEntry {
  readonly id: string;
  readonly name: string;
  readonly label?: string | undefined;
  readonly color?: string | undefined;
  readonly notify?: readonly string[] | undefined;
  readonly embedded: true;
}

export type ServiceEntry = UpstreamEntry | EmbeddedEntry;

export const SERVICE_ID = /^[a-z0-9-]{1,32}$/;
const COLOR = /^(#[0-9a-fA-F]{3,8}|[a-z]{3,20})$/;

/** A problem in a services file, naming the file and line. */
export class ServicesFileError extends Error {
  override readonly name = 'ServicesFileError';
}

function httpUrl(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:'
      ? text.replace(/\/+$/, '')
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why an upstream's URL may not be used, or undefined when it may: a user name, a password, a
 * query or a fragment in it could carry a secret, and a service's URL is shown to everyone who
 * may read the Services page, quoted in its failures and printed at start (issue 39). The
 * message never repeats the URL, which is where the secret would be.
 */
function secretInUrl(text: string, keyGivenBy: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const parts = [
    url.username !== '' && 'a user name',
    url.password !== '' && 'a password',
    url.search !== '' && 'a query',
    url.hash !== '' && 'a fragment',
  ].filter((part): part is string => part !== false);
  if (parts.length === 0) return undefined;
  return `carries ${parts.join(' and ')}, which every viewer of the Services page and every log line would read: give the service's key with ${keyGivenBy}, and the URL as scheme, host, port and path alone`;
}

/**
 * The texts of a field that holds one scalar or a list of them; one that is no text or
 * fails `valid` is refused with `refused` (which names the file and line).
 */
function scalarTexts(node: unknown, valid: (text: string) => boolean, refused: string): string[] {
  const items = isSeq(node) ? node.items : [node];
  return items.map((item) => {
    const text = (item as { value?: unknown } | null)?.value;
    if (typeof text !== 'string' || !valid(text)) throw new ServicesFileError(refused);
    return text;
  });
}

/** `notify:` of a service: one http(s) URL or a list of them. */
function receivers(node: unknown, where: string): string[] | undefined {
  if (node === undefined || node === null) return undefined;
  return scalarTexts(
    node,
    (text) => Boolean(httpUrl(text)),
    `${where}: notify must be http or https URLs`,
  );
}

/** `failedStatuses:` of a service: one status word or a list of them. */
function statusWords(node: unknown, where: string): string[] | undefined {
  if (node === undefined || node === null) return undefined;
  return scalarTexts(
    node,
    isStatusWord,
    `${where}: failedStatuses must be status words of 1 to 64 characters of one line without commas, ; or =`,
  );
}

/** `statuses:` of a service: a mapping of class to one status word or a list of them. */
function statusClasses(node: unknown, where: string): StatusWords | undefined {
  if (node === undefined || node === null) return undefined;
  if (!isMap(node))
    throw new ServicesFileError(
      `${where}: statuses must be a mapping of ${STATUS_CLASSES.join(', ')} to status words`,
    );
  const words: Partial<Record<StatusClass, readonly string[]>> = {};
  for (const pair of node.items) {
    const key = String((pair.key as { value?: unknown } | null)?.value ?? pair.key);
    if (!(STATUS_CLASSES as readonly string[]).includes(key))
      throw new ServicesFileError(
        `${where}: statuses: ${JSON.stringify(key)} is not a class; the classes are ${STATUS_CLASSES.join(', ')}`,
      );
    const value = pair.value;
    const list =
      value === null || value === undefined
        ? []
        : scalarTexts(value, () => true, `${where}: statuses: ${key} must be status words`);
    try {
      words[key as StatusClass] = checkWords(list, `statuses: ${key}`);
    } catch (error) {
      throw new ServicesFileError(`${where}: ${(error as Error).message}`);
    }
  }
  return words;
}

/** Settles a service's status words now, so that a clash stops the start naming it. */
function checkedStatuses(
  statuses: StatusWords | undefined,
  failedStatuses: readonly string[] | undefined,
  where: string,
  wrap: (message: string) => Error,
): void {
  try {
    resolveStatuses(statuses, failedStatuses, where);
  } catch (error) {
    if (error instanceof StatusWordsError) throw wrap(error.message);
    throw error;
  }
}

/** `--upstream URL --upstream-key KEY`: one service, reached at plain /pipelineapi. */
export function singleUpstream(
  url: string,
  apiKey: string | undefined,
  pollSeconds?: number,
  failedStatuses?: readonly string[],
  zone?: string,
  statuses?: StatusWords,
  fileNames?: boolean,
): UpstreamEntry {
  const secret = secretInUrl(url, '--upstream-key (or PIPELINE_UPSTREAM_KEY)');
  if (secret) throw new Error(`--upstream ${secret}`);
  const base = httpUrl(url);
  if (!base) throw new Error('--upstream must be an http or https URL');
  if (!apiKey) throw new Error('--upstream needs --upstream-key (or PIPELINE_UPSTREAM_KEY)');
  if (zone !== undefined && !knownTimeZone(zone))
    throw new Error(
      `--upstream-zone: ${JSON.stringify(zone)} is not a time zone this server knows (an IANA name such as Asia/Tokyo)`,
    );
  checkedStatuses(
    statuses,
    failedStatuses,
    '--upstream-statuses',
    (message) =>
      new Error(
        message.replace(
          "failedStatuses and statuses' failed",
          '--upstream-failed and failed= of --upstream-statuses',
        ),
      ),
  );
  return {
    id: 'upstream',
    name: new URL(base).host,
    url: base,
    apiKey,
    pollSeconds,
    failedStatuses,
    zone,
    statuses,
    fileNames,
  };
}

/**
 * Reads a services file (YAML: a list of services, or `services:` holding one). Keys come
 * inline (`apiKey`) or from an environment variable (`apiKeyEnv`). Every problem names
 * the file and line, and nothing is started with a half-read list.
 */
export function readServicesFile(path: string, env: NodeJS.ProcessEnv): ServiceEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ServicesFileError(`${path}: cannot be read (${(error as Error).message})`);
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (node: Node | null | undefined) =>
    `${path}:${node?.range ? lines.linePos(node.range[0]).line : 1}`;
  if (document.errors.length > 0) {
    const first = document.errors[0];
    throw new ServicesFileError(
      `${path}:${first?.linePos?.[0]?.line ?? 1}: not valid YAML (${first?.code ?? 'syntax'})`,
    );
  }
  const top: unknown = document.contents;
  const list: unknown = isMap(top) ? top.get('services', true) : top;
  if (!isSeq(list))
    throw new ServicesFileError(`${at(document.contents)}: expected a list of services`);
  const seen = new Map<string, string>();
  const entries: ServiceEntry[] = [];
  for (const item of list.items) {
    const where = at(item as Node);
    if (!isMap(item))
      throw new ServicesFileError(`${where}: each service is a mapping (id, name, url, apiKey)`);
    const value = (name: string): string | undefined => {
      const v = item.get(name);
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
        throw new ServicesFileError(`${where}: ${name} must be text`);
      return String(v);
    };
    const known = new Set([
      'id',
      'name',
      'url',
      'apiKey',
      'apiKeyEnv',
      'label',
      'color',
      'embedded',
      'pollSeconds',
      'notify',
      'failedStatuses',
      'statuses',
      'zone',
      'fileNames',
    ]);
    for (const pair of item.items) {
      const key = String((pair.key as { value?: unknown } | null)?.value ?? pair.key);
      if (!known.has(key)) throw new ServicesFileError(`${where}: unknown field ${key}`);
    }
    const id = value('id');
    if (!id || !SERVICE_ID.test(id))
      throw new ServicesFileError(
        `${where}: id must be 1 to 32 of a-z, 0-9 and -, not ${JSON.stringify(id ?? '')}`,
      );
    const earlier = seen.get(id);
    if (earlier)
      throw new ServicesFileError(`${where}: id ${id} is used twice (first at ${earlier})`);
    seen.set(id, where);
    const label = value('label');
    const color = value('color');
    if (color !== undefined && !COLOR.test(color))
      throw new ServicesFileError(`${where}: color must be a #hex value or a colour name`);
    const notify = receivers(item.get('notify', true), where);
    const zone = value('zone');
    if (zone !== undefined && !knownTimeZone(zone))
      throw new ServicesFileError(
        `${where}: service ${id}: zone ${JSON.stringify(zone)} is not a time zone this server knows (an IANA name such as Asia/Tokyo)`,
      );
    if (value('embedded') === 'true') {
      if (zone !== undefined)
        throw new ServicesFileError(
          `${where}: service ${id}: zone is for upstream services; the embedded one runs in the server's own zone`,
        );
      if (item.get('statuses') !== undefined)
        throw new ServicesFileError(
          `${where}: service ${id}: status words are for upstream services; the embedded one's are its contract's`,
        );
      entries.push({
        id,
        name: value('name') ?? 'Embedded service',
        label,
        color,
        notify,
        embedded: true,
      });
      continue;
    }
    const rawUrl = value('url');
    const secret = rawUrl === undefined ? undefined : secretInUrl(rawUrl, 'apiKeyEnv (or apiKey)');
    if (secret) throw new ServicesFileError(`${where}: the url of service ${id} ${secret}`);
    const url = rawUrl === undefined ? undefined : httpUrl(rawUrl);
    if (!url) throw new ServicesFileError(`${where}: url must be an http or https URL`);
    const variable = value('apiKeyEnv');
    const apiKey = value('apiKey') ?? (variable === undefined ? undefined : env[variable]);
    if (!apiKey)
      throw new ServicesFileError(
        variable === undefined
          ? `${where}: service ${id} needs apiKey or apiKeyEnv`
          : `${where}: service ${id} takes its key from ${variable}, which is not set`,
      );
    const poll = value('pollSeconds');
    if (poll !== undefined && !(/^\d+$/.test(poll) && Number(poll) >= 1 && Number(poll) <= 3600))
      throw new ServicesFileError(`${where}: pollSeconds must be a whole number from 1 to 3600`);
    const pollSeconds = poll === undefined ? undefined : Number(poll);
    const names = value('fileNames');
    if (names !== undefined && names !== 'true' && names !== 'false')
      throw new ServicesFileError(`${where}: fileNames must be true or false`);
    const failedStatuses = statusWords(item.get('failedStatuses', true), where);
    const statuses = statusClasses(item.get('statuses', true), where);
    checkedStatuses(
      statuses,
      failedStatuses,
      `${where}: service ${id}`,
      (message) => new ServicesFileError(message),
    );
    entries.push({
      id,
      name: value('name') ?? id,
      url,
      apiKey,
      label,
      color,
      pollSeconds,
      notify,
      failedStatuses,
      statuses,
      zone,
      fileNames: names === undefined ? undefined : names === 'true',
    });
  }
  if (entries.length === 0) throw new ServicesFileError(`${path}: lists no services`);
  if (entries.filter((e) => e.embedded).length > 1)
    throw new ServicesFileError(`${path}: only one service can be the embedded one`);
  return entries;
}
