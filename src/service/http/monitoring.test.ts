import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../app.ts';
import { startService, type TestService } from '../testing/service.ts';

/** Where an operator finds them, beside the systemd unit and the nginx site. */
const DEPLOY = join(REPO_ROOT, 'docs', 'deploy');
const read = (name: string) => readFileSync(join(DEPLOY, name), 'utf8');

/** Series Prometheus makes itself, not the server. */
const PROMETHEUS_OWN = new Set(['up']);
const NOT_METRICS = new Set([
  ...['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'],
  ...['bool', 'and', 'or', 'unless', 'offset'],
]);

/**
 * The metric names a PromQL expression reads: what is left once strings, label matchers,
 * ranges, grouping clauses, numbers and function calls are taken out.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi, '');
  const names: string[] = [];
  for (const match of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = bare.slice((match.index ?? 0) + match[0].length).trimStart();
    if (after.startsWith('(') || NOT_METRICS.has(match[0])) continue;
    names.push(match[0]);
  }
  return names;
}

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description?: string };
}
interface Panel {
  id: number;
  title: string;
  targets: { expr: string; refId: string }[];
}

describe('the sample Grafana dashboard and Prometheus alert rules', () => {
  let service: TestService;
  let exported: Set<string>;

  beforeAll(async () => {
    service = await startService({ demo: true });
    const text = await (await service.fetch('/metrics')).text();
    exported = new Set();
    for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      exported.add(name as string);
      if (type === 'histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${name}${suffix}`);
    }
  });
  afterAll(() => service.close());

  it('reads metric names out of PromQL, so an unknown one fails the checks below', () => {
    expect(
      metricNames(
        'histogram_quantile(0.9, sum by (le, service) (rate(a_seconds_bucket{x=~"y"}[5m]))) > 1.5e9',
      ),
    ).toEqual(['a_seconds_bucket']);
    expect(metricNames('sum(b_total{status="Error"}) or vector(0) and on (job) up == 0')).toEqual([
      'b_total',
      'up',
    ]);
    expect(exported.has('no_such_metric_total')).toBe(false);
  });

  it('every alert rule is complete and reads only metrics the server exports', () => {
    const file = parse(read('alert-rules.yml')) as { groups: { rules: Rule[] }[] };
    const rules = file.groups.flatMap((g) => g.rules);
    expect(rules.length).toBeGreaterThanOrEqual(6);
    const used = new Set<string>();
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^Pipeline[A-Za-z]+$/);
      expect(['critical', 'warning', 'info']).toContain(rule.labels.severity);
      expect(rule.annotations.summary).not.toBe('');
      const names = metricNames(rule.expr);
      expect(names, rule.alert).not.toEqual([]);
      for (const name of names) used.add(name);
    }
    const unknown = [...used].filter((n) => !exported.has(n) && !PROMETHEUS_OWN.has(n));
    expect(unknown).toEqual([]);
    // The rules cover failed requests, upstreams and the server's own answers.
    for (const name of [
      'pipeline_requests_total',
      'pipeline_upstream_check_failures_total',
      'http_request_duration_seconds_count',
      'http_request_duration_seconds_bucket',
    ])
      expect(used).toContain(name);
  });

  it('every Grafana panel and variable reads only metrics the server exports', () => {
    const dashboard = JSON.parse(read('grafana-dashboard.json')) as {
      uid: string;
      panels: Panel[];
      templating: { list: { name: string; query: string }[] };
    };
    expect(dashboard.uid).toBe('pipeline-dashboard-server');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const used = new Set<string>();
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets) {
        const names = metricNames(target.expr.replaceAll('$__rate_interval', '5m'));
        expect(names, `${panel.title} ${target.refId}`).not.toEqual([]);
        for (const name of names) used.add(name);
      }
    }
    for (const variable of dashboard.templating.list) {
      const metric = /^label_values\((\w+),/.exec(variable.query)?.[1];
      if (metric !== undefined) used.add(metric);
    }
    const unknown = [...used].filter((n) => !exported.has(n) && !PROMETHEUS_OWN.has(n));
    expect(unknown).toEqual([]);
    for (const name of [
      'pipeline_requests_today',
      'pipeline_requests_total',
      'pipeline_request_duration_seconds_bucket',
      'pipeline_upstream_check_seconds_bucket',
      'http_request_duration_seconds_bucket',
      'http_request_duration_seconds_count',
    ])
      expect(used).toContain(name);
    // The latency panel: a quantile of the buckets' rate, per route pattern.
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs).toContainEqual(
      expect.stringMatching(
        /histogram_quantile\([\d.]+, sum by \(le, route\) \(rate\(http_request_duration_seconds_bucket/,
      ),
    );
    expect(exprs).toContainEqual(
      expect.stringMatching(/sum by \(status\) \(rate\(pipeline_requests_total/),
    );
  });
});
