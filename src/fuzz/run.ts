import { randomInt } from 'node:crypto';
import { checkGeneratedVendor, reproduce } from '../service/testing/vendor/invariants.ts';

// `npm run fuzz -- vendors --seeds N [--from S]`: the gateway in front of N generated vendors
// (src/service/testing/vendor/generated.ts), from seed S (a random one unless given), each
// checked against the invariants CI checks for its fixed seeds
// (src/service/gateway/generated-vendors.test.ts). `--seed S` checks one. A failing seed
// prints what broke, the vendor it was, and the one command that repeats it.

const USAGE = 'Usage: npm run fuzz -- vendors [--seeds N] [--from S] | vendors --seed S';

function option(args: readonly string[], name: string): number | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined || !/^\d{1,9}$/.test(value))
    throw new Error(`${name} takes a whole number, not ${JSON.stringify(value ?? '')}\n${USAGE}`);
  return Number(value);
}

async function main(args: readonly string[]): Promise<number> {
  if (args[0] !== 'vendors') {
    console.error(USAGE);
    return 2;
  }
  const one = option(args, '--seed');
  const count = one === undefined ? (option(args, '--seeds') ?? 20) : 1;
  const from = one ?? option(args, '--from') ?? randomInt(1_000, 1_000_000_000);
  const failed: number[] = [];
  for (let seed = from; seed < from + count; seed++) {
    try {
      await checkGeneratedVendor(seed);
      console.log(`seed ${seed}: ok`);
    } catch (error) {
      failed.push(seed);
      console.error(error instanceof Error ? error.message : String(error));
    }
  }
  console.log(
    `${count - failed.length} of ${count} generated vendors held (seeds ${from}–${from + count - 1})` +
      (failed.length > 0 ? `; failed: ${failed.map(reproduce).join(' ; ')}` : ''),
  );
  return failed.length > 0 ? 1 : 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 2;
}
