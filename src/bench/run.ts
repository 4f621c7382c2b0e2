import { benchIngest } from './ingest.ts';

// `npm run bench`: every figure is measured in this run, next to its baseline from the
// same run; nothing here asserts a time. Pass names to run a subset: `npm run bench -- ingest`.

const wanted = new Set(process.argv.slice(2));
const runs = (name: string) => wanted.size === 0 || wanted.has(name);

function table(rows: (string | number)[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length))) ?? [];
  return rows.map((r) => r.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join('  ')).join('\n');
}

if (runs('ingest')) {
  const rows = Number(process.env.BENCH_INGEST_ROWS ?? 1_000_000);
  const result = await benchIngest(rows);
  console.log(
    `\nIngest: ${rows.toLocaleString('en')} CSV rows (5 typed columns) through a two-action filter into an action table`,
  );
  console.log(
    table([
      ['what', 'seconds', 'rows/s', 'ratio'],
      [
        'sqlite3 CLI .import (baseline)',
        result.sqliteSeconds.toFixed(2),
        Math.round(rows / result.sqliteSeconds),
        '1.00',
      ],
      [
        'engine, exec to Finish',
        result.engineSeconds.toFixed(2),
        Math.round(rows / result.engineSeconds),
        result.ratio.toFixed(2),
      ],
    ]),
  );
  console.log(
    `Peak RSS of the service process while ingesting: ${result.peakRssMb.toFixed(0)} MB (goal: under 250 MB; ratio goal: at least 0.5)`,
  );
}
