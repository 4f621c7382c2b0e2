import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import {
  acceptsGzip,
  CHARSET_LABEL,
  dateForms,
  DEFAULT_BEHAVIOUR,
  MESSAGES,
  pageOf,
  RUNMODE_WORDS,
  type VendorBehaviour,
} from './behaviour.ts';
import {
  HUGE_DEFAULT_BYTES,
  writeEndless,
  writeHuge,
  writeHugeValue,
  writeMalformed,
  writeTruncated,
  type VendorFault,
} from './faults.ts';

export {
  DEFAULT_BEHAVIOUR,
  MESSAGES as VENDOR_MESSAGES,
  type VendorBehaviour,
} from './behaviour.ts';
export type { VendorFault } from './faults.ts';

// A stand-in for the vendor's pipeline service, written from interfaces.md alone, for the
// gateway's tests. Wherever interfaces.md says "not shown" it differs from our contract on
// purpose. The variants are two plausible products: other status words, failures told as a
// 2xx ExecuteResponse or as a bare HTTP error, exec without `RequestId`, JSON in its own
// loose shape, another time zone. The switches (behaviour.ts) each move one more silent
// point independently: paging (by default none of our extensions: no `index`, no `Total`),
// charsets, date forms, load, leaked keys, cookies, gzip. Faults (faults.ts) break HTTP or
// XML itself. It is not a model of our own service, which is tested as itself.
//
// One file over 400 lines on purpose: it is one description of one imagined product, read
// top to bottom when a gateway test surprises; split, its variants' rules would scatter.
// What a switch means is told once, in behaviour.ts; how each answer shows it is told here.

export interface VendorVariant {
  readonly name: string;
  /** The service's zone: its "today" and the abbreviation its dates carry. */
  readonly zone: { readonly abbreviation: string; readonly offsetMinutes: number };
  /** `envelope`: refusals are 200 ExecuteResponse with a Status other than OK and no Code. */
  readonly failures: 'envelope' | 'http';
  readonly status: {
    readonly waiting: string;
    readonly running: string;
    readonly done: string;
    readonly failed: string;
    readonly cancelled: string;
  };
  readonly version: string;
}

export const VENDOR_VARIANTS = {
  /** Tokyo: JST dates, failures inside 200 answers, its own status words. */
  kanto: {
    name: 'kanto',
    zone: { abbreviation: 'JST', offsetMinutes: 9 * 60 },
    failures: 'envelope',
    status: {
      waiting: 'Wait',
      running: 'Running',
      done: 'Finish',
      failed: 'Abort',
      cancelled: 'Cancel',
    },
    version: '5.2.1',
  },
  /** Pacific: PST dates, failures as HTTP 4xx/5xx with a text or HTML body. */
  pacific: {
    name: 'pacific',
    zone: { abbreviation: 'PST', offsetMinutes: -8 * 60 },
    failures: 'http',
    status: {
      waiting: 'Queued',
      running: 'Process',
      done: 'Finish',
      failed: 'Error',
      cancelled: 'Stopped',
    },
    version: '4.8.0-p3',
  },
} as const satisfies Record<string, VendorVariant>;

/** What a new request's id is made of. */
export interface RequestIdParts {
  readonly pipelineId: string;
  /** The service's day (yyyymmdd) and hour (hh) when the request began. */
  readonly day: string;
  readonly hour: string;
  /** 1 for the pipeline's first request of the day, then on. */
  readonly pipelineSerial: number;
  /** 1 for the service's first request of the day, whatever its pipeline, then on. */
  readonly daySerial: number;
}

/** How a product names its pipelines and requests. */
export interface VendorIds {
  /** The ids of its three pipelines: Sales (with Args), Stock, and Archive (suspended). */
  readonly pipelines: readonly [sales: string, stock: string, archive: string];
  readonly request: (parts: RequestIdParts) => string;
}

export const VENDOR_IDS = {
  /** interfaces.md's example shapes: pl_<number>, <pipeline id>-<yyyymmdd>_<hh>-<serial>. */
  spec: {
    pipelines: ['pl_1', 'pl_2', 'pl_7'],
    request: ({ pipelineId, day, hour, pipelineSerial }) =>
      `${pipelineId}-${day}_${hour}-${String(pipelineSerial).padStart(6, '0')}`,
  },
  /**
   * A product with ids of its own, which interfaces.md does not forbid: a version in a
   * pipeline id, another script, and what a URL must encode (space, `/`, `#`, `?`, `&`,
   * `+`, `%`); request ids numbered per day across pipelines, with the same characters.
   */
  own: {
    pipelines: ['Nightly-Import.v2', '日次取込', 'Archive #7/old? a&b+c%'],
    request: ({ day, daySerial }) =>
      `REQ/${day.slice(0, 4)}/${day.slice(4, 6)}/${day.slice(6)}#${daySerial} 受付?x=1&y=+%`,
  },
} as const satisfies Record<string, VendorIds>;

/** One call as the service received it: its method, path, fields, query and body as sent. */
export interface ReceivedCall {
  readonly method: string;
  readonly api: string;
  /** The URL's path, undecoded (`/pipelineapi/exec/xml`). */
  readonly path: string;
  /** The URL's query and the form body, each as it came on the wire. */
  readonly query: string;
  readonly body: string;
  /** The fields as the service read them (a body field wins over a query field). */
  readonly fields: Readonly<Record<string, string>>;
}

/** Calls `received()` keeps, the latest: enough for a test, bounded for a load test. */
const RECEIVED_KEPT = 1000;

interface VendorPipeline {
  id: string;
  name: string;
  runmode: 'run' | 'stop';
  description: string;
  created: Date;
  args: { name: string; value: string }[];
}

interface VendorRequest {
  requestId: string;
  pipelineId: string;
  filename: string;
  status: string;
  stage: string;
  begin: Date;
  end: Date | null;
  step: number;
  errorMsg: string;
  /** A retry answered and not taken up yet (retryStart 'queued'). */
  retryQueued?: boolean;
  log: VendorLogEntry[];
}

interface VendorLogEntry {
  date: Date;
  stage: string;
  event: string;
  status: string;
  message: string;
  /** Its application-log line when that is not an INFO line of its message. */
  appLine?: { type: string; message: string };
}

export interface VendorService {
  readonly url: string;
  readonly apiKey: string;
  readonly variant: VendorVariant;
  /** The switches this service was started with, defaults filled in. */
  readonly behaviour: VendorBehaviour;
  /** Moves every unfinished request of a running pipeline one step on. */
  advance(): void;
  /**
   * Adds `count` requests of a pipeline to today, oldest first: finished, or in the
   * variant's failed or waiting status.
   */
  addRequests(
    pipelineId: string,
    count: number,
    filename?: string,
    state?: 'done' | 'failed' | 'waiting',
  ): void;
  /** Appends `count` generated rows to an action database table (SALES exists). */
  addTableRows(table: string, count: number): void;
  /** How many rows an action database table holds. */
  tableRows(table: string): number;
  /** Calls received so far, per api (list, requestlist, ...): what a gateway costs it. */
  calls(): Readonly<Record<string, number>>;
  /**
   * The latest calls it read (at most 1,000), oldest first, exactly as they came: not those
   * refused as busy, nor those a fault broke before they were read.
   */
  received(): readonly ReceivedCall[];
  /**
   * Calls carried out so far, per api: those the service acted on (a call whose caller left
   * before it was answered is dropped unanswered, as some products do, and not counted here).
   */
  carriedOut(): Readonly<Record<string, number>>;
  /** The most calls that were in flight at once so far, refused ones included. */
  maxInFlight(): number;
  /** Answers every later call this many milliseconds late (0: at once), whatever latencyMs says. */
  setDelay(ms: number): void;
  /**
   * Breaks every later answer (of `apis`, default all) until cleared with undefined:
   * 'truncated' (the whole Content-Length, the connection cut after half the body),
   * 'endless' (a 200 that never ends), 'malformed' (a 200 of broken XML), 'huge' (valid XML
   * of `bytes` bytes, default 200 MiB, streamed), 'hugeValue' (the same, one text value of
   * that size), 'error' (the service's own internal
   * failure: a 500, or a SystemError envelope).
   */
  setFault(
    fault: VendorFault | undefined,
    options?: { readonly apis?: readonly string[]; readonly bytes?: number },
  ): void;
  /** Requests as the service holds them, newest first. */
  requests(): readonly VendorRequest[];
  /** Pipelines as the service holds them (a suspend sets runmode stop). */
  pipelines(): readonly Readonly<VendorPipeline>[];
  close(): Promise<void>;
}

const STEPS = ['Sensor', 'Filter', 'Joint'] as const;

/** The root element of each api's answer, for faults that must look like one. */
const ROOTS: Record<string, string> = {
  list: 'PipelineList',
  requestlist: 'RequestList',
  requestdetail: 'RequestDetail',
  version: 'Response',
  systemdb: 'Result',
  statusdb: 'Result',
  actiondb: 'Result',
};

const MEDIA = { xml: 'text/xml', json: 'text/javascript', html: 'text/html', text: 'text/plain' };

/** One answer before its charset and transfer coding are applied. */
interface Answer {
  status: number;
  type: keyof typeof MEDIA;
  body: string;
  headers?: Record<string, string>;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escape = (text: string): string =>
  /[&<>"]/.test(text) ? text.replace(/[&<>"]/g, (c) => ENTITIES[c] ?? c) : text;

type Node = string | null | { [name: string]: Node | Node[] };

const TAGS = new Map<string, readonly [open: string, close: string, empty: string]>();
const tags = (name: string) => {
  let found = TAGS.get(name);
  if (!found) TAGS.set(name, (found = [`<${name}>`, `</${name}>`, `<${name} isnull="true"/>`]));
  return found;
};

/**
 * Pushes whole tags and joins once: building each element's string, or joining at every
 * level, costs several times more on a day of 100,000 requests in one answer.
 */
function xml(name: string, node: Node | Node[], out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) xml(name, n, out);
  else {
    const [open, close, empty] = tags(name);
    if (node === null) out.push(empty);
    else if (typeof node === 'string') out.push(open, escape(node), close);
    else {
      out.push(open);
      for (const k in node) xml(k, node[k] as Node | Node[], out);
      out.push(close);
    }
  }
  return out;
}

/** The vendor's JSON: the XML tree as it stands, one element an object, many an array. */
function looseJson(node: Node | Node[]): unknown {
  if (Array.isArray(node))
    return node.length === 1 ? looseJson(node[0] as Node) : node.map(looseJson);
  if (node === null || typeof node === 'string') return node ?? '';
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, looseJson(v)]));
}

/**
 * A table of td rows, one per record of scalars. `list` is as interfaces.md describes it:
 * one row per pipeline, its six cells and nothing of what is nested (Args); the HTML of
 * other APIs is not shown there, so this one writes the nested records as rows too.
 */
function htmlRows(node: Node, api: string): string {
  const rows: string[] = [];
  const walk = (value: Node | Node[]): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value && typeof value === 'object') {
      const cells = Object.values(value).filter((v) => typeof v === 'string' || v === null);
      if (cells.length > 0)
        rows.push(`<tr>${cells.map((c) => `<td>${escape(String(c ?? ''))}</td>`).join('')}</tr>`);
      if (cells.length > 0 && api === 'list') return;
      Object.values(value).forEach((v) => typeof v === 'object' && walk(v));
    }
  };
  walk(node);
  return `<table>${rows.join('')}</table>`;
}

/** Starts a vendor-like service on an ephemeral loopback port. */
export async function startVendorService(
  options: {
    variant?: VendorVariant;
    apiKey?: string;
    now?: () => Date;
    behaviour?: Partial<VendorBehaviour>;
    /** How it names pipelines and requests (default interfaces.md's shapes). */
    ids?: VendorIds;
  } = {},
): Promise<VendorService> {
  const variant = options.variant ?? VENDOR_VARIANTS.kanto;
  const ids = options.ids ?? VENDOR_IDS.spec;
  const [salesId, stockId, archiveId] = ids.pipelines;
  const apiKey = options.apiKey ?? 'vendor-key-0123456789abcdef';
  const now = options.now ?? (() => new Date());
  // A switch given as undefined keeps its default, as one left out does.
  const given = Object.entries(options.behaviour ?? {}).filter(([, value]) => value !== undefined);
  const behaviour: VendorBehaviour = Object.freeze({
    ...DEFAULT_BEHAVIOUR,
    ...Object.fromEntries(given),
  });
  const words = MESSAGES[behaviour.language];
  const session = `vendor-session-${randomBytes(12).toString('hex')}`;
  const shifted = (date: Date) => new Date(date.getTime() + variant.zone.offsetMinutes * 60_000);
  const day = (date: Date) => shifted(date).toISOString().slice(0, 10).replaceAll('-', '');
  const stamp = (date: Date) => shifted(date).toISOString().slice(0, 19).replace('T', ' ');
  const created = (date: Date) =>
    `${shifted(date).toISOString().slice(0, 23)} ${variant.zone.abbreviation}`;
  const dates = dateForms(behaviour.dates, variant.zone);
  const label = CHARSET_LABEL[behaviour.charset];
  const inDocument = behaviour.declare === 'both' || behaviour.declare === 'document';
  const inHeader = behaviour.declare === 'both' || behaviour.declare === 'content-type';
  // Without an encoding, an XML reader takes UTF-8: a lie whenever the charset is another.
  const prolog = `<?xml version="1.0"${inDocument ? ` encoding="${label}"` : ''}?>`;
  const page = (title: string | undefined, body: string): string => {
    const head = `${inDocument ? `<meta charset="${label}">` : ''}${title === undefined ? '' : `<title>${title}</title>`}`;
    return `<html>${head ? `<head>${head}</head>` : ''}<body>${body}</body></html>`;
  };
  const pipelines: VendorPipeline[] = [
    {
      id: salesId,
      name: 'Sales',
      runmode: 'run',
      description: 'Daily sales',
      created: now(),
      args: [{ name: 'region', value: 'JP' }],
    },
    { id: stockId, name: 'Stock', runmode: 'run', description: '', created: now(), args: [] },
    {
      id: archiveId,
      name: 'Archive',
      runmode: 'stop',
      description: 'Held',
      created: now(),
      args: [],
    },
  ];
  // Oldest first, so adding is a push; requests() turns it round once per change.
  const requests: VendorRequest[] = [];
  const byId = new Map<string, VendorRequest>();
  const byDay = new Map<string, VendorRequest[]>();
  let newestFirst: VendorRequest[] | undefined;
  const serials = new Map<string, number>();
  const tables = new Map<
    string,
    { columns: [string, string, boolean][]; rows: (string | null)[][] }
  >([
    [
      'SALES',
      {
        columns: [
          ['ID', 'BIGINT', true],
          ['REGION', 'VARCHAR', false],
          ['AMOUNT', 'INTEGER', false],
        ],
        rows: [
          ['1', 'JP', '120'],
          ['2', null, '80'],
          ['3', '', '5'],
        ],
      },
    ],
  ]);

  // Requests added together share their millisecond: its day and hour are worked out once.
  let last = { time: NaN, date: '', hour: '' };
  const newRequest = (pipelineId: string, filename: string, at: Date): VendorRequest => {
    if (at.getTime() !== last.time) {
      const iso = shifted(at).toISOString();
      last = {
        time: at.getTime(),
        date: iso.slice(0, 10).replaceAll('-', ''),
        hour: iso.slice(11, 13),
      };
    }
    const { date, hour } = last;
    const key = `${pipelineId}-${date}`;
    const serial = (serials.get(key) ?? 0) + 1;
    serials.set(key, serial);
    const request: VendorRequest = {
      requestId: ids.request({
        pipelineId,
        day: date,
        hour,
        pipelineSerial: serial,
        daySerial: (byDay.get(date)?.length ?? 0) + 1,
      }),
      pipelineId,
      filename,
      status: variant.status.waiting,
      stage: '',
      begin: at,
      end: null,
      step: 0,
      errorMsg: '',
      log: [{ date: at, stage: '', event: 'Start', status: 'Start', message: '' }],
    };
    requests.push(request);
    byId.set(request.requestId, request);
    const ofDay = byDay.get(date);
    if (ofDay) ofDay.push(request);
    else byDay.set(date, [request]);
    newestFirst = undefined;
    return request;
  };

  const terminal = (r: VendorRequest) =>
    [variant.status.done, variant.status.failed, variant.status.cancelled].includes(r.status);

  /** A retry taken up: the request waits again, its failure gone (a fixed input). */
  const startAgain = (r: VendorRequest): void => {
    Object.assign(r, {
      status: variant.status.waiting,
      step: 0,
      end: null,
      errorMsg: '',
      retryQueued: false,
      filename: r.filename.replace('fail', 'fixed'),
    });
    if (behaviour.retryLog === 'rewritten')
      r.log = [{ date: now(), stage: '', event: 'Start', status: 'Start', message: '' }];
  };

  const advance = (): void => {
    for (let i = requests.length - 1; i >= 0; i--) {
      const r = requests[i] as VendorRequest;
      if (r.retryQueued) {
        startAgain(r);
        continue;
      }
      const pipeline = pipelines.find((p) => p.id === r.pipelineId);
      if (terminal(r) || pipeline?.runmode === 'stop') continue;
      const at = now();
      if (r.step < STEPS.length) {
        r.status = variant.status.running;
        r.stage = STEPS[r.step] as string;
        r.log.push({ date: at, stage: r.stage, event: 'Start', status: 'Process', message: '' });
        r.step++;
        continue;
      }
      if (r.filename.includes('fail')) fail(r, at);
      else {
        r.end = at;
        r.status = variant.status.done;
        r.stage = 'Complete';
        r.log.push({ date: at, stage: '', event: 'End', status: 'Finish', message: '' });
      }
    }
  };

  /** A request fails (its input unreadable); its reason written where failureLog says. */
  const fail = (r: VendorRequest, at: Date): void => {
    r.end = at;
    r.status = variant.status.failed;
    r.errorMsg = words.unreadable(r.filename);
    const closing = { date: at, stage: '', event: 'End', status: 'Finish' };
    r.log.push(
      behaviour.failureLog === 'closing'
        ? { ...closing, message: r.errorMsg }
        : behaviour.failureLog === 'app-log'
          ? { ...closing, message: '', appLine: { type: 'ERROR', message: r.errorMsg } }
          : { ...closing, message: '' },
    );
  };

  /** A refusal, told the variant's way; `page` is a whole HTML error page to show instead. */
  class Refusal extends Error {
    constructor(
      readonly httpStatus: number,
      message: string,
      readonly page?: string,
    ) {
      super(message);
    }
  }

  /** The service's own failure, which with echoKey shows what it was sent, key and all. */
  const systemError = (req: IncomingMessage): Refusal => {
    if (!behaviour.echoKey) return new Refusal(500, words.systemError());
    const sent: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      sent.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    return new Refusal(
      500,
      `${words.systemError()} (${sent.join('; ')})`,
      page(
        'HTTP Status 500',
        `<h1>HTTP Status 500 - ${escape(words.systemError())}</h1><h2>Request headers</h2><pre>${escape(sent.join('\n'))}</pre>`,
      ),
    );
  };

  const refuse = (refusal: Refusal): Answer => {
    if (variant.failures === 'envelope')
      return {
        status: 200,
        type: 'xml',
        body: `${prolog}${xml('ExecuteResponse', {
          Status: refusal.httpStatus >= 500 ? 'SystemError' : 'Error',
          Message: refusal.message,
        }).join('')}`,
      };
    if (refusal.page) return { status: refusal.httpStatus, type: 'html', body: refusal.page };
    if (refusal.httpStatus === 404)
      return {
        status: 404,
        type: 'html',
        body: page(undefined, `<h1>404</h1><p>${escape(refusal.message)}</p>`),
      };
    return { status: refusal.httpStatus, type: 'text', body: refusal.message };
  };

  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    fields: Record<string, string>,
  ): Answer => {
    const url = new URL(req.url ?? '/', 'http://vendor');
    const [, prefix, api = '', type = 'xml'] = url.pathname.split('/');
    if (prefix !== 'pipelineapi') throw new Refusal(404, words.notFound());
    const key = req.headers['x-pipelinewebapi'];
    const cookie = /SESSIONID=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (key !== apiKey && !(behaviour.sessionId && cookie === session))
      throw new Refusal(
        401,
        behaviour.echoKey ? words.invalidKeyEchoed(String(key ?? '')) : words.invalidKey(),
      );
    if (behaviour.sessionId) res.setHeader('Set-Cookie', `SESSIONID=${session}; Path=/`);
    const field = (name: string): string => {
      const value = fields[name];
      if (!value) throw new Refusal(400, words.required(name));
      return value;
    };
    const pipeline = (id: string) => {
      const found = pipelines.find((p) => p.id === id);
      if (!found) throw new Refusal(404, words.noPipeline(id));
      return found;
    };
    const request = (id: string) => {
      const found = byId.get(id);
      if (!found) throw new Refusal(404, words.noRequest(id));
      return found;
    };
    const table = (name: string) => {
      const found = tables.get(name);
      if (!found) throw new Refusal(404, words.noTable(name));
      return found;
    };
    const ok = (extra: Record<string, string> = {}): [string, Node] => [
      'ExecuteResponse',
      { Status: 'OK', Message: 'Success', ...extra },
    ];
    /** A Result of one page of `rows`, as the paging switches tell it. */
    const result = <T>(
      header: Node,
      rows: readonly T[],
      record: (row: T) => Node,
    ): [string, Node] => {
      const { start, end, info } = pageOf(behaviour, rows.length, fields, 'tables');
      return [
        'Result',
        { Info: info, Header: header, Record: rows.slice(start, end).map(record), Status: 'OK' },
      ];
    };
    const method = req.method ?? 'GET';
    const routes: Record<string, [string, () => [string, Node]]> = {
      list: [
        'GET',
        () => [
          'PipelineList',
          {
            PipeLine: pipelines.map((p) => ({
              Id: p.id,
              Name: p.name,
              Runmode: RUNMODE_WORDS[behaviour.runmodeWords][p.runmode],
              Createdate: created(p.created),
              Updatedate: created(p.created),
              Description: p.description,
              ...(p.args.length > 0
                ? { Args: { Item: p.args.map((a) => ({ Name: a.name, Value: a.value })) } }
                : {}),
            })),
          },
        ],
      ],
      exec: [
        'POST',
        () => {
          pipeline(field('pipelineid'));
          newRequest(fields.pipelineid as string, field('filename'), now());
          return ok();
        },
      ],
      requestlist: [
        'GET',
        () => {
          const date = fields.date ?? day(now());
          const ofDay = byDay.get(date) ?? [];
          // The day is kept oldest first.
          const matching = ofDay.filter((r) => !fields.id || r.pipelineId === fields.id);
          if (behaviour.order === 'newest') matching.reverse();
          const { start, end, info } = pageOf(behaviour, matching.length, fields, 'requests');
          const names = new Map(pipelines.map((p) => [p.id, p.name]));
          return [
            'RequestList',
            {
              Request: matching.slice(start, end).map((r) => {
                const name = names.get(r.pipelineId);
                if (name === undefined) throw new Refusal(404, words.noPipeline(r.pipelineId));
                return {
                  RequestId: r.requestId,
                  PipelineId: r.pipelineId,
                  Name: name,
                  Status: r.status,
                  Stage: r.stage,
                  BeginDate: dates.when(r.begin),
                };
              }),
              Info: { ...info, Error: 'false', Date: date, Id: fields.id ?? '' },
            },
          ];
        },
      ],
      requestdetail: [
        'GET',
        () => {
          const r = request(field('requestid'));
          return [
            'RequestDetail',
            {
              RequestId: r.requestId,
              PipelineId: r.pipelineId,
              Name: pipeline(r.pipelineId).name,
              Status: r.status,
              Stage: r.stage,
              BeginTime: dates.when(r.begin),
              EndTime: r.end ? dates.when(r.end) : '',
              SensorTime: r.step > 0 ? '00:01' : '',
              FilterTime: r.step > 1 ? '00:02' : '',
              JointTime: r.step > 2 ? '00:01' : '',
              SensorFile: r.filename,
              FileSize: '1.2 KB',
              ...(fields.requestlog === 'true'
                ? {
                    RequestLog: {
                      Log: r.log.map((l, i) => ({
                        Date: dates.log(l.date),
                        Stage: l.stage,
                        Event: l.event,
                        Status: l.status,
                        ActionOrder: String(i),
                        Message: l.message,
                      })),
                    },
                  }
                : {}),
              ...(fields.applog === 'true'
                ? {
                    AppLog: {
                      Log: [
                        ...Array.from({ length: behaviour.appLogLines }, () => ({
                          date: r.begin,
                          type: 'INFO',
                          message: 'Heartbeat: reader and writer are alive',
                        })),
                        ...r.log.map((l) => ({
                          date: l.date,
                          type: l.appLine?.type ?? 'INFO',
                          message:
                            l.appLine?.message ??
                            (l.message || `${l.stage || 'Request'} ${l.event}`),
                        })),
                      ].map((line, i) => ({
                        Index: String(i + 1),
                        Date: dates.time(line.date),
                        Type: line.type,
                        Message: line.message,
                      })),
                    },
                  }
                : {}),
            },
          ];
        },
      ],
      requestretry: [
        'PUT',
        () => {
          const r = request(field('requestid'));
          if (r.status !== variant.status.failed && r.status !== variant.status.cancelled)
            throw new Refusal(409, words.notRetriable(r.requestId, r.status));
          if (behaviour.retryStart === 'new-request') {
            const again = newRequest(r.pipelineId, r.filename.replace('fail', 'fixed'), now());
            return ok({ Message: words.retriedAs(r.requestId, again.requestId) });
          }
          if (behaviour.retryStart === 'queued') r.retryQueued = true;
          else startAgain(r);
          return ok();
        },
      ],
      requestcancel: [
        'DELETE',
        () => {
          const r = request(field('requestid'));
          if (terminal(r)) throw new Refusal(409, words.ended(r.requestId, r.status));
          Object.assign(r, { status: variant.status.cancelled, end: now() });
          return ok();
        },
      ],
      resume: ['PUT', () => ((pipeline(field('pipelineid')).runmode = 'run'), ok())],
      suspend: ['PUT', () => ((pipeline(field('pipelineid')).runmode = 'stop'), ok())],
      version: ['GET', () => ['Response', { Version: variant.version }]],
      systemdb: ['GET', () => result({ Item: 'tablename' }, ['PIPELINE'], (t) => ({ Item: t }))],
      statusdb: [
        'GET',
        () => {
          const days = [...byDay.keys()].sort();
          if (!fields.tablename)
            return result({ Item: 'tablename' }, days, (d) => ({ Item: `STATUS${d}` }));
          const ofDay = byDay.get(/^STATUS(\d{8})$/.exec(fields.tablename)?.[1] ?? '');
          if (!ofDay) throw new Refusal(404, words.noTable(fields.tablename));
          const columns = [
            'REQUESTID',
            'PIPELINEID',
            'CREATED',
            'LASTUPDATED',
            'STAGE',
            'STATUS',
            'ERRORMSG',
            'ERROR',
          ];
          return result(
            {
              Item: columns.map((c) => ({
                Name: c,
                Type: c === 'ERROR' ? 'INTEGER' : c.endsWith('ED') ? 'TIMESTAMP' : 'VARCHAR',
                Key: String(c === 'REQUESTID'),
              })),
            },
            [...ofDay].reverse(),
            (r) => ({
              Item: [
                r.requestId,
                r.pipelineId,
                stamp(r.begin),
                stamp(r.end ?? r.begin),
                r.stage,
                r.status,
                r.errorMsg || null,
                r.status === variant.status.failed ? '1' : '0',
              ],
            }),
          );
        },
      ],
      actiondb: [
        'GET',
        () => {
          if (!fields.tablename)
            return result({ Item: 'tablename' }, [...tables.keys()], (t) => ({ Item: t }));
          const { columns, rows } = table(fields.tablename);
          return result(
            { Item: columns.map(([name, t, k]) => ({ Name: name, Type: t, Key: String(k) })) },
            rows,
            (row) => ({ Item: row }),
          );
        },
      ],
      pipelinecache: ['DELETE', () => (pipeline(field('pipelineid')), ok())],
      deletetable: [
        'DELETE',
        () => {
          const found = table(field('table'));
          const count = found.rows.length;
          found.rows = [];
          return ok({ RowCount: String(count) });
        },
      ],
      droptable: [
        'DELETE',
        () => {
          const found = table(field('table'));
          tables.delete(fields.table as string);
          return ok({ RowCount: String(found.rows.length) });
        },
      ],
    };
    const route = routes[api];
    if (!route) throw new Refusal(404, words.unknownApi(api));
    if (route[0] !== method) throw new Refusal(405, words.method(method));
    const [root, body] = route[1]();
    if (type === 'json')
      return { status: 200, type: 'json', body: JSON.stringify({ [root]: looseJson(body) }) };
    if (type === 'htm') return { status: 200, type: 'html', body: page(root, htmlRows(body, api)) };
    return { status: 200, type: 'xml', body: `${prolog}${xml(root, body).join('')}` };
  };

  /** The answer's bytes and headers: its charset, where it is declared, and gzip. */
  const encode = (
    req: IncomingMessage,
    { status, type, body, headers }: Answer,
  ): { status: number; headers: Record<string, string>; bytes: Buffer } => {
    const all: Record<string, string> = {
      'content-type': inHeader ? `${MEDIA[type]}; charset=${label}` : MEDIA[type],
      ...headers,
    };
    let bytes =
      behaviour.charset === 'utf-8'
        ? Buffer.from(behaviour.bom ? `\uFEFF${body}` : body)
        : iconv.encode(body, behaviour.charset);
    if (behaviour.gzip) {
      all.vary = 'Accept-Encoding';
      if (acceptsGzip(req.headers['accept-encoding'])) {
        bytes = gzipSync(bytes);
        all['content-encoding'] = 'gzip';
      }
    }
    return { status, headers: all, bytes };
  };

  let fault: { kind: VendorFault; apis?: ReadonlySet<string>; bytes: number } | undefined;
  const calls: Record<string, number> = {};
  const received: ReceivedCall[] = [];
  const carriedOut: Record<string, number> = {};
  let delayMs: number | undefined;
  let inFlight = 0;
  let answering = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const api = new URL(req.url ?? '/', 'http://vendor').pathname.split('/')[2] ?? '';
    calls[api] = (calls[api] ?? 0) + 1;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // 'close' comes once the answer is out or the client has gone: the call's end either way.
    res.on('close', () => inFlight--);
    const admitted = behaviour.concurrency <= 0 || answering < behaviour.concurrency;
    if (admitted) {
      answering++;
      res.on('close', () => answering--);
    }
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const wait = delayMs ?? behaviour.latencyMs;
      if (!admitted) respond();
      else if (wait > 0) setTimeout(respond, wait);
      else respond();
    });
    const respond = () => {
      if (res.destroyed) return;
      if (!admitted) {
        const busy = encode(req, {
          status: 503,
          type: 'text',
          body: words.busy(),
          headers: { 'retry-after': '1' },
        });
        res.writeHead(busy.status, busy.headers);
        res.end(busy.bytes);
        return;
      }
      const broken = fault && (!fault.apis || fault.apis.has(api)) ? fault : undefined;
      if (broken?.kind === 'endless') return writeEndless(res);
      if (broken?.kind === 'malformed') return writeMalformed(res);
      if (broken?.kind === 'huge')
        return writeHuge(res, api, ROOTS[api] ?? 'ExecuteResponse', broken.bytes);
      if (broken?.kind === 'hugeValue')
        return writeHugeValue(res, ROOTS[api] ?? 'ExecuteResponse', broken.bytes);
      const url = new URL(req.url ?? '/', 'http://vendor');
      const fields: Record<string, string> = Object.fromEntries(url.searchParams);
      const body = Buffer.concat(chunks).toString('utf8');
      for (const [k, v] of new URLSearchParams(body)) fields[k] = v;
      received.push({
        method: req.method ?? 'GET',
        api,
        path: url.pathname,
        query: url.search.slice(1),
        body,
        fields: { ...fields },
      });
      if (received.length > RECEIVED_KEPT) received.shift();
      let told: Answer;
      try {
        if (broken?.kind === 'error') throw systemError(req);
        told = answer(req, res, fields);
        carriedOut[api] = (carriedOut[api] ?? 0) + 1;
      } catch (error) {
        told = refuse(error instanceof Refusal ? error : systemError(req));
      }
      const { status, headers, bytes } = encode(req, told);
      if (broken?.kind === 'truncated') return writeTruncated(res, status, headers, bytes);
      res.writeHead(status, headers);
      res.end(bytes);
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    variant,
    behaviour,
    advance,
    addRequests(pipelineId, count, filename = 'daily.csv', state = 'done') {
      for (let i = 0; i < count; i++) {
        const r = newRequest(pipelineId, filename, now());
        if (state === 'waiting') continue;
        r.step = STEPS.length;
        if (state === 'failed') {
          r.stage = 'Joint';
          fail(r, now());
          continue;
        }
        r.status = variant.status.done;
        r.stage = 'Complete';
        r.end = now();
      }
    },
    tableRows(name) {
      const found = tables.get(name);
      if (!found) throw new Error(`No action table ${name}`);
      return found.rows.length;
    },
    addTableRows(name, count) {
      const found = tables.get(name);
      if (!found) throw new Error(`No action table ${name}`);
      const regions = ['JP', 'US', 'DE', 'FR', null, ''];
      for (let i = 0; i < count; i++) {
        const n = found.rows.length + 1;
        found.rows.push(
          found.columns.map(([column, type, key]) =>
            key || type === 'BIGINT'
              ? String(n)
              : type === 'INTEGER'
                ? String((n * 37) % 1000)
                : type === 'TIMESTAMP'
                  ? stamp(now())
                  : column === 'REGION'
                    ? (regions[n % regions.length] as string | null)
                    : `${column.toLowerCase()}-${n}`,
          ),
        );
      }
    },
    calls: () => ({ ...calls }),
    received: () => [...received],
    carriedOut: () => ({ ...carriedOut }),
    maxInFlight: () => maxInFlight,
    setDelay(ms) {
      delayMs = ms;
    },
    setFault(kind, { apis, bytes = HUGE_DEFAULT_BYTES } = {}) {
      fault = kind && { kind, bytes, ...(apis ? { apis: new Set(apis) } : {}) };
    },
    requests: () => (newestFirst ??= [...requests].reverse()),
    pipelines: () => pipelines,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
