import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in for the vendor's pipeline service, written from interfaces.md alone, for the
// gateway's tests. Wherever interfaces.md says "not shown" it differs from our contract on
// purpose, in one of two plausible ways (the variants): other status words, failures told
// as a 2xx ExecuteResponse or as a bare HTTP error, no paging extensions (no `index`, no
// `Total`), exec without `RequestId`, JSON in its own loose shape, another time zone. It is
// not a model of our own service, which is tested as itself.
//
// One file over 400 lines on purpose: it is one description of one imagined product, read
// top to bottom when a gateway test surprises; split, its variants' rules would scatter.

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
  log: { date: Date; stage: string; event: string; status: string; message: string }[];
}

export interface VendorService {
  readonly url: string;
  readonly apiKey: string;
  readonly variant: VendorVariant;
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
  /** Calls answered so far, per api (list, requestlist, ...): what a gateway costs it. */
  calls(): Readonly<Record<string, number>>;
  /** Answers every later call this many milliseconds late (0: at once). */
  setDelay(ms: number): void;
  /** Requests as the service holds them, newest first. */
  requests(): readonly VendorRequest[];
  close(): Promise<void>;
}

const STEPS = ['Sensor', 'Filter', 'Joint'] as const;

const escape = (text: string): string =>
  text.replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c,
  );

type Node = string | null | { [name: string]: Node | Node[] };

function xml(name: string, node: Node | Node[]): string {
  if (Array.isArray(node)) return node.map((n) => xml(name, n)).join('');
  if (node === null) return `<${name} isnull="true"/>`;
  if (typeof node === 'string') return `<${name}>${escape(node)}</${name}>`;
  return `<${name}>${Object.entries(node)
    .map(([k, v]) => xml(k, v))
    .join('')}</${name}>`;
}

/** The vendor's JSON: the XML tree as it stands, one element an object, many an array. */
function looseJson(node: Node | Node[]): unknown {
  if (Array.isArray(node))
    return node.length === 1 ? looseJson(node[0] as Node) : node.map(looseJson);
  if (node === null || typeof node === 'string') return node ?? '';
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, looseJson(v)]));
}

function htmlTable(root: string, node: Node): string {
  const rows: string[] = [];
  const walk = (value: Node | Node[]): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value && typeof value === 'object') {
      const cells = Object.values(value).filter((v) => typeof v === 'string' || v === null);
      if (cells.length > 0)
        rows.push(`<tr>${cells.map((c) => `<td>${escape(String(c ?? ''))}</td>`).join('')}</tr>`);
      Object.values(value).forEach((v) => typeof v === 'object' && walk(v));
    }
  };
  walk(node);
  return `<html><head><title>${root}</title></head><body><table>${rows.join('')}</table></body></html>`;
}

/** Starts a vendor-like service on an ephemeral loopback port. */
export async function startVendorService(
  options: { variant?: VendorVariant; apiKey?: string; now?: () => Date } = {},
): Promise<VendorService> {
  const variant = options.variant ?? VENDOR_VARIANTS.kanto;
  const apiKey = options.apiKey ?? 'vendor-key-0123456789abcdef';
  const now = options.now ?? (() => new Date());
  const shifted = (date: Date) => new Date(date.getTime() + variant.zone.offsetMinutes * 60_000);
  const day = (date: Date) => shifted(date).toISOString().slice(0, 10).replaceAll('-', '');
  const stamp = (date: Date) => shifted(date).toISOString().slice(0, 19).replace('T', ' ');
  const created = (date: Date) =>
    `${shifted(date).toISOString().slice(0, 23)} ${variant.zone.abbreviation}`;
  const pipelines: VendorPipeline[] = [
    {
      id: 'pl_1',
      name: 'Sales',
      runmode: 'run',
      description: 'Daily sales',
      created: now(),
      args: [{ name: 'region', value: 'JP' }],
    },
    { id: 'pl_2', name: 'Stock', runmode: 'run', description: '', created: now(), args: [] },
    { id: 'pl_7', name: 'Archive', runmode: 'stop', description: 'Held', created: now(), args: [] },
  ];
  const requests: VendorRequest[] = [];
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

  const newRequest = (pipelineId: string, filename: string, at: Date): VendorRequest => {
    const key = `${pipelineId}-${day(at)}`;
    const serial = (serials.get(key) ?? 0) + 1;
    serials.set(key, serial);
    const hour = shifted(at).toISOString().slice(11, 13);
    const request: VendorRequest = {
      requestId: `${pipelineId}-${day(at)}_${hour}-${String(serial).padStart(6, '0')}`,
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
    requests.unshift(request);
    return request;
  };

  const terminal = (r: VendorRequest) =>
    [variant.status.done, variant.status.failed, variant.status.cancelled].includes(r.status);

  const advance = (): void => {
    for (const r of requests) {
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
      r.end = at;
      if (r.filename.includes('fail')) {
        r.status = variant.status.failed;
        r.errorMsg = `Input ${r.filename} could not be parsed`;
      } else {
        r.status = variant.status.done;
        r.stage = 'Complete';
      }
      r.log.push({ date: at, stage: '', event: 'End', status: 'Finish', message: r.errorMsg });
    }
  };

  /** A refusal, told the variant's way. */
  class Refusal extends Error {
    constructor(
      readonly httpStatus: number,
      message: string,
    ) {
      super(message);
    }
  }

  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    fields: Record<string, string>,
  ): void => {
    const url = new URL(req.url ?? '/', 'http://vendor');
    const [, prefix, api = '', type = 'xml'] = url.pathname.split('/');
    if (prefix !== 'pipelineapi') throw new Refusal(404, 'Not Found');
    const key = req.headers['x-pipelinewebapi'];
    const cookie = /SESSIONID=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (key !== apiKey && cookie !== 'vendor-session') throw new Refusal(401, 'Invalid API key');
    res.setHeader('Set-Cookie', 'SESSIONID=vendor-session; Path=/');
    const field = (name: string): string => {
      const value = fields[name];
      if (!value) throw new Refusal(400, `${name} is required`);
      return value;
    };
    const pipeline = (id: string) => {
      const found = pipelines.find((p) => p.id === id);
      if (!found) throw new Refusal(404, `Pipeline ${id} does not exist`);
      return found;
    };
    const request = (id: string) => {
      const found = requests.find((r) => r.requestId === id);
      if (!found) throw new Refusal(404, `Request ${id} does not exist`);
      return found;
    };
    const ok = (extra: Record<string, string> = {}): [string, Node] => [
      'ExecuteResponse',
      { Status: 'OK', Message: 'Success', ...extra },
    ];
    const pageSize = Math.max(1, Math.min(1000, Number(fields.pagesize) || 100));
    const result = (header: Node, records: Node[]): [string, Node] => [
      'Result',
      {
        Info: { Index: '0', Prev: '-1', Next: '-1', Count: String(records.length) },
        Header: header,
        Record: records,
        Status: 'OK',
      },
    ];
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
              Runmode: p.runmode,
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
          const matching = requests.filter(
            (r) => day(r.begin) === date && (!fields.id || r.pipelineId === fields.id),
          );
          const shown = matching.slice(0, pageSize);
          return [
            'RequestList',
            {
              Request: shown.map((r) => ({
                RequestId: r.requestId,
                PipelineId: r.pipelineId,
                Name: pipeline(r.pipelineId).name,
                Status: r.status,
                Stage: r.stage,
                BeginDate: stamp(r.begin),
              })),
              Info: {
                Index: '0',
                Prev: '-1',
                Next: '-1',
                Count: String(shown.length),
                Error: 'false',
                Date: date,
                Id: fields.id ?? '',
              },
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
              BeginTime: stamp(r.begin),
              EndTime: r.end ? stamp(r.end) : '',
              SensorTime: r.step > 0 ? '00:01' : '',
              FilterTime: r.step > 1 ? '00:02' : '',
              JointTime: r.step > 2 ? '00:01' : '',
              SensorFile: r.filename,
              FileSize: '1.2 KB',
              ...(fields.requestlog === 'true'
                ? {
                    RequestLog: {
                      Log: r.log.map((l, i) => ({
                        Date: stamp(l.date).replaceAll('-', '/'),
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
                      Log: r.log.map((l, i) => ({
                        Index: String(i + 1),
                        Date: stamp(l.date).slice(11),
                        Type: 'INFO',
                        Message: l.message || `${l.stage || 'Request'} ${l.event}`,
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
            throw new Refusal(
              409,
              `Request ${r.requestId} cannot be retried in status ${r.status}`,
            );
          Object.assign(r, {
            status: variant.status.waiting,
            step: 0,
            end: null,
            errorMsg: '',
            filename: r.filename.replace('fail', 'fixed'),
          });
          return ok();
        },
      ],
      requestcancel: [
        'DELETE',
        () => {
          const r = request(field('requestid'));
          if (terminal(r))
            throw new Refusal(409, `Request ${r.requestId} has already ended (${r.status})`);
          Object.assign(r, { status: variant.status.cancelled, end: now() });
          return ok();
        },
      ],
      resume: ['PUT', () => ((pipeline(field('pipelineid')).runmode = 'run'), ok())],
      suspend: ['PUT', () => ((pipeline(field('pipelineid')).runmode = 'stop'), ok())],
      version: ['GET', () => ['Response', { Version: variant.version }]],
      systemdb: ['GET', () => result({ Item: 'tablename' }, [{ Item: 'PIPELINE' }])],
      statusdb: [
        'GET',
        () => {
          const days = [...new Set(requests.map((r) => day(r.begin)))].sort();
          if (!fields.tablename)
            return result(
              { Item: 'tablename' },
              days.map((d) => ({ Item: `STATUS${d}` })).slice(0, pageSize),
            );
          const match = /^STATUS(\d{8})$/.exec(fields.tablename);
          if (!match || !days.includes(match[1] as string))
            throw new Refusal(404, `Table ${fields.tablename} does not exist`);
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
            requests
              .filter((r) => day(r.begin) === match[1])
              .slice(0, pageSize)
              .map((r) => ({
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
              })),
          );
        },
      ],
      actiondb: [
        'GET',
        () => {
          if (!fields.tablename)
            return result(
              { Item: 'tablename' },
              [...tables.keys()].map((t) => ({ Item: t })),
            );
          const table = tables.get(fields.tablename);
          if (!table) throw new Refusal(404, `Table ${fields.tablename} does not exist`);
          return result(
            {
              Item: table.columns.map(([name, t, k]) => ({ Name: name, Type: t, Key: String(k) })),
            },
            table.rows.slice(0, pageSize).map((row) => ({ Item: row })),
          );
        },
      ],
      pipelinecache: ['DELETE', () => (pipeline(field('pipelineid')), ok())],
      deletetable: [
        'DELETE',
        () => {
          const table = tables.get(field('table'));
          if (!table) throw new Refusal(404, `Table ${fields.table} does not exist`);
          const count = table.rows.length;
          table.rows = [];
          return ok({ RowCount: String(count) });
        },
      ],
      droptable: [
        'DELETE',
        () => {
          const table = tables.get(field('table'));
          if (!table) throw new Refusal(404, `Table ${fields.table} does not exist`);
          tables.delete(fields.table as string);
          return ok({ RowCount: String(table.rows.length) });
        },
      ],
    };
    const route = routes[api];
    if (!route) throw new Refusal(404, `Unknown API ${api}`);
    if (route[0] !== method) throw new Refusal(405, `Method ${method} is not allowed`);
    const [root, body] = route[1]();
    if (type === 'json') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(JSON.stringify({ [root]: looseJson(body) }));
    } else if (type === 'htm') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(htmlTable(root, body));
    } else {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>${xml(root, body)}`);
    }
  };

  const calls: Record<string, number> = {};
  let delayMs = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const api = new URL(req.url ?? '/', 'http://vendor').pathname.split('/')[2] ?? '';
    calls[api] = (calls[api] ?? 0) + 1;
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => (delayMs > 0 ? setTimeout(respond, delayMs) : respond()));
    const respond = () => {
      if (res.destroyed) return;
      const url = new URL(req.url ?? '/', 'http://vendor');
      const fields: Record<string, string> = Object.fromEntries(url.searchParams);
      for (const [k, v] of new URLSearchParams(Buffer.concat(chunks).toString('utf8')))
        fields[k] = v;
      try {
        answer(req, res, fields);
      } catch (error) {
        const refusal = error instanceof Refusal ? error : new Refusal(500, 'System error');
        if (variant.failures === 'envelope') {
          res.writeHead(200, { 'content-type': 'text/xml' });
          res.end(
            `<?xml version="1.0" encoding="UTF-8"?>${xml('ExecuteResponse', { Status: refusal.httpStatus >= 500 ? 'SystemError' : 'Error', Message: refusal.message })}`,
          );
        } else if (refusal.httpStatus === 404) {
          res.writeHead(404, { 'content-type': 'text/html' });
          res.end(`<html><body><h1>404</h1><p>${escape(refusal.message)}</p></body></html>`);
        } else {
          res.writeHead(refusal.httpStatus, { 'content-type': 'text/plain' });
          res.end(refusal.message);
        }
      }
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    variant,
    advance,
    addRequests(pipelineId, count, filename = 'daily.csv', state = 'done') {
      for (let i = 0; i < count; i++) {
        const r = newRequest(pipelineId, filename, now());
        if (state === 'waiting') continue;
        Object.assign(r, {
          status: state === 'done' ? variant.status.done : variant.status.failed,
          stage: state === 'done' ? 'Complete' : 'Joint',
          step: STEPS.length,
          end: now(),
          errorMsg: state === 'done' ? '' : `Input ${filename} could not be parsed`,
        });
      }
    },
    calls: () => ({ ...calls }),
    setDelay(ms) {
      delayMs = ms;
    },
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
