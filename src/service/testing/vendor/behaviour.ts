// The switches of the vendor double: each one way a real pipeline service may answer where
// interfaces.md says nothing (paging, charsets, date forms, load, leaks). They are
// independent, so a test can turn one on alone, or walk a pairwise cover of all of them
// (pairwise.ts). Everything here is pure; vendor-service.ts applies it.

export interface VendorBehaviour {
  /** requestlist, statusdb, actiondb: 'honoured' (min(pagesize||100, 1000) rows), 'ignored' (every row whatever pagesize says: a whole day in one answer), or { cap: N } (min(pagesize||100, N)). */
  readonly pagesize: 'honoured' | 'ignored' | { readonly cap: number };
  /**
   * Which lists a `{ cap }` cuts: 'every list', only the day's 'requests' (requestlist), or
   * only the databases' 'tables' (statusdb, actiondb, systemdb); the others honour pagesize.
   * A product may cap what it keeps large and not the rest.
   */
  readonly capped: 'every list' | 'requests' | 'tables';
  /**
   * How requestlist, statusdb and actiondb take `index`: true, a 0-based row offset; 'pages',
   * a 0-based page number (index 1 with pagesize 1000 starts at row 1000, and Info's Index,
   * Prev and Next count pages too); false, not at all.
   */
  readonly index: boolean | 'pages';
  /** Info's Next: 'always-1' (-1 whatever was left out), 'stated' (the index of the next row, -1 only when nothing is left), 'absent' (no Next/Prev element). */
  readonly next: 'always-1' | 'stated' | 'absent';
  /** requestlist's order: 'newest' first, as interfaces.md's example; 'oldest' first, as a table is. */
  readonly order: 'newest' | 'oldest';
  /** Info carries Total (count of all matching rows). */
  readonly total: boolean;
  /** Charset of every answer body. */
  readonly charset: 'utf-8' | 'shift_jis' | 'euc-jp';
  /** Where the charset is declared: 'both' (Content-Type charset param AND the XML declaration's encoding / an HTML <meta charset>), 'content-type' only, 'document' only (XML declaration / meta, Content-Type without charset), 'none' (declared nowhere, a mis-declaration when not utf-8). */
  readonly declare: 'both' | 'content-type' | 'document' | 'none';
  /** UTF-8 bodies begin with a byte order mark (EF BB BF), as .NET's UTF8Encoding(true) writes them. */
  readonly bom: boolean;
  /** Language of the service's own messages (refusal texts, error messages of requests). */
  readonly language: 'en' | 'ja';
  /** Form of BeginDate/BeginTime/EndTime/log Dates: 'dash' (YYYY-MM-DD hh:mm:ss; request logs then keep their YYYY/MM/DD), 'slash' (YYYY/MM/DD hh:mm:ss), 'iso' (YYYY-MM-DDThh:mm:ss), 'millis' (YYYY-MM-DD hh:mm:ss.mmm), 'zoned' (YYYY-MM-DD hh:mm:ss JST, the variant's abbreviation). Request ids keep their shape. */
  readonly dates: 'dash' | 'slash' | 'iso' | 'millis' | 'zoned';
  /** Milliseconds before every answer (setDelay overrides it). */
  readonly latencyMs: number;
  /** Calls answered at once; one more in flight is refused HTTP 503 with `Retry-After: 1` and a text body. 0 = unlimited. */
  readonly concurrency: number;
  /** Refusals repeat the API key they were sent: a 401 "Invalid key <key>", a 500 page (failures 'http') echoing the request headers; envelope variants put it in the Message. */
  readonly echoKey: boolean;
  /** Sets `SESSIONID=<random per start>; Path=/` on answers and accepts that cookie in place of the key. */
  readonly sessionId: boolean;
  /** gzip answers when the request's Accept-Encoding allows it (Content-Encoding: gzip). */
  readonly gzip: boolean;
  /** A retry 'rewritten': the request's logs start again, its failure's lines gone (as products do); 'kept': appended to. */
  readonly retryLog: 'kept' | 'rewritten';
  /**
   * requestretry 'at-once': the request is waiting again when the answer comes; 'queued': the
   * answer says OK and the request is left as it was (failed, its end time kept) until the
   * service's next step (advance) takes the retry up, as a product with a job queue does;
   * 'new-request': the retry is a new request of the same pipeline and file, named only in
   * the answer's Message, and the failed one stays failed.
   */
  readonly retryStart: 'at-once' | 'queued' | 'new-request';
  /** Lines of routine chatter (INFO) at the head of every application log: a product that logs much. */
  readonly appLogLines: number;
  /**
   * Where a failed request's reason is written (interfaces.md does not show it): 'closing',
   * in the message of its request log's closing entry, whose status is Finish (the only end
   * state shown); 'app-log', in an ERROR line of its application log, the closing entry
   * silent; 'none', in its status table alone.
   */
  readonly failureLog: 'closing' | 'app-log' | 'none';
  /**
   * list's Runmode words (interfaces.md shows run and stop): 'spec', those; 'upper', another
   * product's RUNNING and SUSPENDED; 'own', words of its own language (稼働中, 停止中).
   */
  readonly runmodeWords: 'spec' | 'upper' | 'own';
}

/** How each runmodeWords writes a pipeline's two states. */
export const RUNMODE_WORDS: Record<
  VendorBehaviour['runmodeWords'],
  Record<'run' | 'stop', string>
> = {
  spec: { run: 'run', stop: 'stop' },
  upper: { run: 'RUNNING', stop: 'SUSPENDED' },
  own: { run: '稼働中', stop: '停止中' },
};

/** The double as it was before the switches: every existing test was written against it. */
export const DEFAULT_BEHAVIOUR: VendorBehaviour = Object.freeze({
  pagesize: 'honoured',
  capped: 'every list',
  index: false,
  next: 'always-1',
  order: 'newest',
  total: false,
  charset: 'utf-8',
  declare: 'both',
  bom: false,
  language: 'en',
  dates: 'dash',
  latencyMs: 0,
  concurrency: 0,
  echoKey: false,
  sessionId: true,
  gzip: false,
  retryLog: 'kept',
  retryStart: 'at-once',
  appLogLines: 0,
  failureLog: 'closing',
  runmodeWords: 'spec',
});

/** The name a charset is declared by (IANA's spelling, as servers write it). */
export const CHARSET_LABEL: Record<VendorBehaviour['charset'], string> = {
  'utf-8': 'UTF-8',
  shift_jis: 'Shift_JIS',
  'euc-jp': 'EUC-JP',
};

/**
 * The rows one answer shows out of `total` matching ones, and the Info that tells it.
 * `fields` are the request's own pagesize and index, as sent.
 */
export function pageOf(
  behaviour: VendorBehaviour,
  total: number,
  fields: { readonly pagesize?: string; readonly index?: string },
  list: 'requests' | 'tables',
): { start: number; end: number; info: Record<string, string> } {
  const asked = Number(fields.pagesize) || 100;
  const { pagesize, capped } = behaviour;
  const cap =
    pagesize === 'honoured' ||
    pagesize === 'ignored' ||
    (capped !== 'every list' && capped !== list)
      ? 1000
      : pagesize.cap;
  const size = pagesize === 'ignored' ? Infinity : Math.max(1, Math.min(asked, cap));
  const offset = Math.trunc(Number(fields.index));
  const pages = behaviour.index === 'pages';
  const wanted = behaviour.index && offset > 0 ? offset : 0;
  // (A page number times an answer of every row, pagesize ignored, is past the end.)
  const start = Math.min(wanted > 0 && pages ? wanted * size : wanted, total);
  const end = Math.min(total, start + size);
  const stated = behaviour.next === 'stated';
  // A page-numbering service tells pages where the others tell rows.
  const told = (row: number) => String(pages ? Math.floor(row / size) : row);
  const info: Record<string, string> = { Index: pages ? String(wanted) : told(start) };
  if (behaviour.next !== 'absent') {
    info.Prev = stated && start > 0 ? told(Math.max(0, start - size)) : '-1';
    info.Next = stated && end < total ? told(end) : '-1';
  }
  info.Count = String(end - start);
  if (behaviour.total) info.Total = String(total);
  return { start, end, info };
}

/**
 * The service's dates in the chosen form, in its zone. `log` is a request log's Date (its
 * own slash form when the dates are as before), `time` an application log's clock time.
 */
export function dateForms(
  dates: VendorBehaviour['dates'],
  zone: { readonly abbreviation: string; readonly offsetMinutes: number },
): { when: (date: Date) => string; log: (date: Date) => string; time: (date: Date) => string } {
  const iso = (date: Date) => new Date(date.getTime() + zone.offsetMinutes * 60_000).toISOString();
  const forms: Record<VendorBehaviour['dates'], (date: Date) => string> = {
    dash: (date) => iso(date).slice(0, 19).replace('T', ' '),
    slash: (date) => iso(date).slice(0, 19).replace('T', ' ').replaceAll('-', '/'),
    iso: (date) => iso(date).slice(0, 19),
    millis: (date) => iso(date).slice(0, 23).replace('T', ' '),
    zoned: (date) => `${iso(date).slice(0, 19).replace('T', ' ')} ${zone.abbreviation}`,
  };
  // Requests added together share their second: remembering the last one spares most of
  // the formatting of a 100,000-request answer.
  let last = { time: NaN, text: '' };
  const when = (date: Date) => {
    const time = date.getTime();
    if (time !== last.time) last = { time, text: forms[dates](date) };
    return last.text;
  };
  return {
    when,
    log: dates === 'dash' ? forms.slash : when,
    time: (date) => when(date).slice(11),
  };
}

/** The service's own words, in its language: what a client shows its user unchanged. */
export const MESSAGES = {
  en: {
    notFound: () => 'Not Found',
    invalidKey: () => 'Invalid API key',
    invalidKeyEchoed: (key: string) => `Invalid key ${key}`,
    required: (name: string) => `${name} is required`,
    noPipeline: (id: string) => `Pipeline ${id} does not exist`,
    noRequest: (id: string) => `Request ${id} does not exist`,
    noTable: (name: string) => `Table ${name} does not exist`,
    notRetriable: (id: string, status: string) =>
      `Request ${id} cannot be retried in status ${status}`,
    retriedAs: (id: string, as: string) => `Request ${id} is retried as request ${as}`,
    ended: (id: string, status: string) => `Request ${id} has already ended (${status})`,
    unknownApi: (api: string) => `Unknown API ${api}`,
    method: (method: string) => `Method ${method} is not allowed`,
    systemError: () => 'System error',
    busy: () => 'Too many calls at once, retry later',
    unreadable: (filename: string) => `Input ${filename} could not be parsed`,
  },
  ja: {
    notFound: () => '見つかりません',
    invalidKey: () => 'API キーが正しくありません',
    invalidKeyEchoed: (key: string) => `キー ${key} は正しくありません`,
    required: (name: string) => `${name} を指定してください`,
    noPipeline: (id: string) => `パイプライン ${id} は存在しません`,
    noRequest: (id: string) => `リクエスト ${id} は存在しません`,
    noTable: (name: string) => `テーブル ${name} は存在しません`,
    notRetriable: (id: string, status: string) =>
      `リクエスト ${id} は状態 ${status} のため再実行できません`,
    retriedAs: (id: string, as: string) => `リクエスト ${id} をリクエスト ${as} として再実行します`,
    ended: (id: string, status: string) => `リクエスト ${id} は既に終了しています（${status}）`,
    unknownApi: (api: string) => `API ${api} はありません`,
    method: (method: string) => `メソッド ${method} は使えません`,
    systemError: () => 'システムエラーが発生しました',
    busy: () => '同時に呼ばれた数が多すぎます。しばらくしてから再実行してください',
    unreadable: (filename: string) => `ファイル ${filename} を読めません`,
  },
} as const satisfies Record<
  VendorBehaviour['language'],
  Record<string, (...args: string[]) => string>
>;

/** Whether an Accept-Encoding header lets the answer be gzipped (a q of 0 forbids it). */
export function acceptsGzip(header: string | undefined): boolean {
  let allowed = false;
  for (const part of (header ?? '').split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (coding === 'gzip' || coding === 'x-gzip') return q === undefined || Number(q) > 0;
    if (coding === '*') allowed = q === undefined || Number(q) > 0;
  }
  return allowed;
}
