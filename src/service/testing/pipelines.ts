import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Definitions used by the service tests; written next to the test's data folder. */
export const TEST_PIPELINES = `
pipelines:
  - id: pl_1
    name: Orders
    description: Orders with args
    args:
      - { name: minAmount, default: '10' }
    sensor: { format: csv }
    filter:
      - keep: { field: amount, op: '>=', value: '\${minAmount}' }
      - cast: { id: integer, amount: double }
      - derive: { doubled: 'amount * 2' }
    joint:
      - table:
          name: ORDERS
          columns:
            - { name: ID, type: BIGINT, key: true, from: id }
            - { name: AMOUNT, type: DOUBLE, from: amount }
            - { name: DOUBLED, type: DOUBLE, from: doubled }
            - { name: NOTE, type: VARCHAR, from: note }
      - file: { name: 'orders-\${requestid}.csv', format: csv }
  - id: pl_2
    name: "<script>alert('x')</script> & Co"
    description: "<img src=x onerror=alert(1)> \\"quoted\\" & 'single'"
    sensor: { format: jsonl }
    joint:
      - table:
          name: EVENTS
          columns:
            - { name: KIND, type: VARCHAR, from: kind }
            - { name: N, type: INTEGER, from: n }
  - id: pl_3
    name: Held
    description: Suspended at start
    runmode: stop
    sensor: { format: csv }
    joint:
      - file: { name: 'held-\${requestid}.jsonl', format: jsonl }
`;

/** A pipeline (one entry of `pipelines:`) whose cast refuses a code that is not an integer. */
export const STRICT_CODES_PIPELINE = `  - id: pl_2
    name: Strict
    sensor: { format: csv }
    filter:
      - cast: { code: integer }
    joint:
      - table:
          name: CODES
          columns:
            - { name: CODE, type: INTEGER, from: code }
`;

export function writeTestPipelines(folder: string): string {
  const path = join(folder, 'test-pipelines.yaml');
  writeFileSync(path, TEST_PIPELINES);
  return path;
}

export function ordersCsv(rows: number, start = 1): string {
  let text = 'id,amount,note\n';
  for (let i = start; i < start + rows; i++)
    text += `${i},${(i % 50) + 0.5},${i % 3 === 0 ? '' : `n${i}`}\n`;
  return text;
}
