import { changeOne, type Command } from './command-run.ts';
import { followLogs } from './follow-logs.ts';
import { bulkSummary, startedLine, stateOf, table } from './output.ts';
import { EXIT, UsageError, wholeNumber } from './usage.ts';

// pipelinectl's commands on requests: the pipelines to start them from, starting and
// following one, a day's list and counts, one request, retry and cancel, one at a time or
// in bulk.

export const REQUEST_COMMANDS: Readonly<Record<string, Command>> = {
  list: async ({ client, wire, out }) => {
    const pipelines = await client.listPipelines(wire);
    out(pipelines, () =>
      table(
        pipelines.map((p) => ({
          Id: p.id,
          Name: p.name,
          Runmode: p.runmode,
          Updated: p.updatedate,
          Args: p.args.map((a) => `${a.name}=${a.value}`).join(' '),
        })),
      ),
    );
    return 0;
  },
  exec: async ({ client, target, values, wire, okStatuses, waitTimeoutS, progress, out, need }) => {
    const args: Record<string, string> = {};
    for (const pair of values.arg ?? []) {
      const at = pair.indexOf('=');
      if (at < 1) throw new UsageError(`--arg takes name=value, not ${pair}`);
      args[pair.slice(0, at)] = pair.slice(at + 1);
    }
    const pipelineId = need(target, 'a pipeline id');
    const filename = need(values.file, '--file');
    const wait = values.wait === true;
    const started = await client.startRequest(pipelineId, filename, args, {
      format: wire,
      find: wait,
    });
    const startedJson = { ...started, requestId: started.requestId ?? null };
    if (!wait) {
      out(startedJson, () => `${startedLine(started, pipelineId)}\n`);
      return 0;
    }
    if (started.requestId === undefined) {
      out({ ...startedJson, outcome: 'unknown' }, () => `${startedLine(started, pipelineId)}\n`);
      return EXIT.notFollowed;
    }
    const requestId = started.requestId;
    const followed = await client.followRequest(requestId, {
      format: wire,
      okStatuses,
      timeoutMs: waitTimeoutS * 1000,
      onChange: (detail) => progress(`${requestId} ${stateOf(detail)}\n`),
    });
    const { detail, outcome } = followed;
    out({ ...startedJson, outcome, detail }, () => {
      const end =
        outcome === 'running'
          ? `${requestId} has not ended after ${waitTimeoutS} s: ${stateOf(detail)}`
          : `${requestId} ended ${stateOf(detail)}${detail.endTime ? ` at ${detail.endTime}` : ''}${outcome === 'failed' ? `: failed (ok is ${okStatuses.join(', ')})` : ''}`;
      return `${startedLine(started, pipelineId)}\n${end}\n`;
    });
    return outcome === 'ok' ? EXIT.done : outcome === 'failed' ? EXIT.failed : EXIT.notFollowed;
  },
  requests: async ({ client, values, wire, page, out }) => {
    const list = await client.requestList(
      {
        date: values.date,
        id: values.pipeline,
        ...page,
      },
      wire,
    );
    out(list, () => {
      const info = list.info;
      const summary = `${info.date}${info.id ? ` ${info.id}` : ''}: ${info.count} of ${info.total ?? '?'} from index ${info.index}${info.next >= 0 ? ` (next: --index ${info.next})` : ''}\n`;
      return (
        summary +
        table(
          list.requests.map((r) => ({
            RequestId: r.requestId,
            Pipeline: r.name,
            Status: r.status,
            Stage: r.stage,
            Begin: r.beginDate,
          })),
        )
      );
    });
    return 0;
  },
  requeststats: async ({ client, values, wire, out }) => {
    const stats = await client.requestStats({ date: values.date, id: values.pipeline }, wire);
    out(stats, () => {
      // One column per status of the day, contract statuses or not, in the answer's order.
      const statuses = [...new Set(stats.pipelines.flatMap((p) => p.counts.map((c) => c.status)))];
      const pivot = (counts: readonly { status: string; value: number }[]) =>
        Object.fromEntries(
          statuses.map((s) => [s, counts.find((c) => c.status === s)?.value ?? 0]),
        );
      const perPipeline = stats.pipelines.map((p) => ({
        Id: p.id,
        Name: p.name,
        ...pivot(p.counts),
      }));
      const perHour = stats.hours
        .filter((h) => h.counts.length > 0)
        .map((h) => ({ Hour: String(h.hour).padStart(2, '0'), ...pivot(h.counts) }));
      return (
        `${stats.date}: ${stats.total} requests\n` +
        table(perPipeline, ['Id', 'Name', ...statuses]) +
        (perHour.length > 0 ? `\n${table(perHour, ['Hour', ...statuses])}` : '')
      );
    });
    return 0;
  },
  detail: async ({
    client,
    target,
    values,
    wire,
    okStatuses,
    waitTimeoutS,
    write,
    progress,
    out,
    need,
  }) => {
    const requestId = need(target, 'a request id');
    if (values.follow)
      return followLogs(client, requestId, {
        wire,
        okStatuses,
        timeoutMs: waitTimeoutS * 1000,
        json: values.json === true,
        write,
        progress,
      });
    const detail = await client.requestDetail(
      requestId,
      { requestLog: values.logs, appLog: values.logs },
      wire,
    );
    out(detail, () => {
      const { requestLog, appLog, begin: _begin, end: _end, ...summary } = detail;
      let text = table(
        Object.entries(summary).map(([field, value]) => ({
          Field: field,
          Value: value as string,
        })),
      );
      if (requestLog) text += `\nRequest log\n${table(requestLog.map((l) => ({ ...l })))}`;
      if (appLog) text += `\nApplication log\n${table(appLog.map((l) => ({ ...l })))}`;
      return text;
    });
    return 0;
  },
  retry: changeOne('retry', 'a request id'),
  cancel: changeOne('cancel', 'a request id'),
  bulk: async ({ client, target, values, out, need }) => {
    if (target !== 'retry' && target !== 'cancel')
      throw new UsageError('bulk takes retry or cancel');
    const selection = {
      action: target,
      date: need(values.date, '--date'),
      id: values.pipeline,
      statuses: values.status?.split(','),
      q: values.q,
    } as const;
    const preview = await client.bulk.preview(selection);
    if (values.reason === undefined) {
      out(preview, () =>
        [
          `${preview.total} requests would be ${target === 'retry' ? 'retried' : 'cancelled'}; add --reason to do it.`,
          ...preview.requestIds,
          '',
        ].join('\n'),
      );
      return 0;
    }
    let job = await client.bulk.start(selection, values.reason, preview.total);
    while (job.state === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 500));
      job = await client.bulk.job(job.jobId, { pageSize: 1 });
    }
    out(job, () => bulkSummary(job));
    return job.refused + job.failed > 0 || job.state === 'stopped' ? 1 : 0;
  },
  'bulk-job': async ({ client, target, out, need }) => {
    const id = wholeNumber(
      'bulk-job',
      need(target, 'a job id'),
      'a job id (a whole number from 1)',
      1,
    ) as number;
    const job = await client.bulk.job(id, { pageSize: 1 });
    const problems = [
      ...(await client.bulk.job(id, { outcome: 'refused', pageSize: 1000 })).items,
      ...(await client.bulk.job(id, { outcome: 'failed', pageSize: 1000 })).items,
    ];
    out({ ...job, items: problems }, () =>
      problems.length === 0
        ? bulkSummary(job)
        : `${bulkSummary(job)}${table(problems.map((p) => ({ RequestId: p.requestId, Outcome: p.outcome, Message: p.message })))}`,
    );
    return 0;
  },
};
