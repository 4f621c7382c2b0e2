import { describe, expect, it } from 'vitest';
import { wrkPercentile } from './api.ts';

// wrk 4.1's report as it printed the NaN p50: the "+/- Stdev" column of the thread stats
// ends in "50%" (75.50%) and "99%" (89.99%), above the distribution the figures come from.
const REPORT = `Running 5s test @ http://127.0.0.1:40123/pipelineapi/list/json
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.31ms  812.44us  24.01ms   75.50%
    Req/Sec    21.88k     1.20k   23.51k    89.99%
  Latency Distribution
     50%    2.18ms
     75%  612.00us
     90%    3.05ms
     99%    1.02s
  108848 requests in 5.00s, 140.36MB read
Requests/sec:  21768.03
Transfer/sec:     28.07MB
`;

describe("wrk's latency distribution", () => {
  it('is read from its own lines, whatever the thread stats above it end in', () => {
    expect(wrkPercentile(REPORT, 50)).toBe(2.18);
    expect(wrkPercentile(REPORT, 75)).toBeCloseTo(0.612);
    expect(wrkPercentile(REPORT, 90)).toBe(3.05);
    expect(wrkPercentile(REPORT, 99)).toBe(1020);
  });

  it('is NaN when the report has none (wrk run without --latency)', () => {
    expect(wrkPercentile(REPORT.replace(/ {2}Latency Distribution[\s\S]*?requests/, ''), 50)).toBe(
      Number.NaN,
    );
  });
});
