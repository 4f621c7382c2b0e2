import type { BulkJob, RequestDetail, StartedRequest } from '../index.ts';

// How pipelinectl prints for people: tables, a request's state, the exec line, a bulk
// job's summary. (--json prints the kit's records as they are.)

/** The exec line: what the service answered and which request it started, if known. */
export function startedLine(started: StartedRequest, pipelineId: string): string {
  const head = `${started.status} ${started.message}`;
  if (started.requestIdFrom === 'service') return `${head} ${started.requestId}`;
  if (started.requestIdFrom === 'list')
    return `${head} ${started.requestId} (the service named no request id; it is the one new request of ${pipelineId} in its list of the day)`;
  const fresh = started.newRequestIds;
  if (fresh === undefined) return `${head}: accepted; the service named no request id`;
  return fresh.length === 0
    ? `${head}: accepted; the service named no request id, and its list of the day shows no new request of ${pipelineId}: cannot tell which to follow`
    : `${head}: accepted; the service named no request id, and its list of the day shows ${fresh.length} new requests of ${pipelineId} (${fresh.join(', ')}): cannot tell which to follow`;
}

export function stateOf(detail: RequestDetail): string {
  return `${detail.status || '(no status)'}${detail.stage ? ` (${detail.stage})` : ''}`;
}

export type Row = Record<string, string | number | boolean | null | undefined>;

export function table(rows: readonly Row[], columns?: readonly string[]): string {
  const names = columns ?? Object.keys(rows[0] ?? {});
  if (rows.length === 0) return '(none)\n';
  const cell = (value: Row[string]) =>
    value === null ? 'NULL' : value === undefined ? '' : String(value).replace(/\s+/g, ' ');
  const widths = names.map((n) =>
    Math.min(60, Math.max(n.length, ...rows.map((r) => cell(r[n]).length))),
  );
  const line = (values: readonly string[]) =>
    values
      .map((v, i) =>
        v.length > (widths[i] ?? 0)
          ? `${v.slice(0, (widths[i] ?? 1) - 1)}…`
          : v.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return `${[line(names), line(widths.map((w) => '-'.repeat(w))), ...rows.map((r) => line(names.map((n) => cell(r[n]))))].join('\n')}\n`;
}

export function bulkSummary(job: BulkJob): string {
  const ran = `job ${job.jobId} (${job.action}, ${job.state}): ${job.done} of ${job.total} done, ${job.succeeded} ok, ${job.refused} refused, ${job.failed} failed`;
  const calls = job.stopped === null ? ran : `${ran}\n${job.stopped}`;
  if (!job.now || job.now.accepted === 0) return `${calls}\n`;
  const now = [
    ...job.now.statuses.map((s) => `${s.count} ${s.status}`),
    ...(job.now.unknown > 0 ? [`${job.now.unknown} no longer known`] : []),
  ];
  return `${calls}\nthe ${job.now.accepted} accepted now: ${now.join(', ')}\n`;
}
