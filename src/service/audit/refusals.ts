/*
 * Calls refused before anyone was known (no, wrong or expired credentials) are what a
 * stranger can send without end. Each address has its first PER_ADDRESS of a minute
 * recorded one by one; the rest of its minute become one summary entry, whose count grows
 * in place. Beyond ROWS_PER_MINUTE such rows in a minute from all addresses together, the
 * rest of the minute goes to one summary of everyone (address `*`): however many addresses
 * a flood comes from, it adds at most ROWS_PER_MINUTE + 1 rows a minute.
 */

export const PER_ADDRESS = 20;
export const ROWS_PER_MINUTE = 200;
/** Addresses followed in one minute; more are counted in the summary of everyone. */
const MAX_ADDRESSES = 10_000;
/** Operations named in a summary, with their counts. */
const MAX_OPERATIONS = 8;

/** One minute's refusals beyond the bound, from one address or from everyone. */
export interface RefusalSummary {
  /** The audit entry it is written to, once written. */
  seq: number | undefined;
  readonly address: string;
  readonly minute: number;
  count: number;
  readonly addresses: Set<string>;
  readonly operations: Map<string, number>;
  httpStatus: number;
  first: string;
  last: string;
}

export type RefusalDecision =
  { readonly kind: 'record' } | { readonly kind: 'summary'; readonly summary: RefusalSummary };

export class RefusalCounter {
  private minute = -1;
  private rows = 0;
  private readonly byAddress = new Map<
    string,
    { count: number; summary: RefusalSummary | undefined }
  >();
  private everyone: RefusalSummary | undefined;

  /** Whether this refusal gets an entry of its own or is counted in a summary (updated here). */
  admit(
    address: string,
    operation: string,
    httpStatus: number,
    now: Date,
    limits = { perAddress: PER_ADDRESS, rowsPerMinute: ROWS_PER_MINUTE },
  ): RefusalDecision {
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.rows = 0;
      this.byAddress.clear();
      this.everyone = undefined;
    }
    let seen = this.byAddress.get(address);
    if (!seen && this.byAddress.size < MAX_ADDRESSES) {
      seen = { count: 0, summary: undefined };
      this.byAddress.set(address, seen);
    }
    if (seen) {
      seen.count += 1;
      if (seen.summary) return this.count(seen.summary, address, operation, httpStatus, now);
      if (this.rows < limits.rowsPerMinute) {
        this.rows += 1;
        if (seen.count <= limits.perAddress) return { kind: 'record' };
        seen.summary = this.start(address, minute, now);
        return this.count(seen.summary, address, operation, httpStatus, now);
      }
    }
    this.everyone ??= this.start('*', minute, now);
    return this.count(this.everyone, address, operation, httpStatus, now);
  }

  private start(address: string, minute: number, now: Date): RefusalSummary {
    const time = now.toISOString();
    return {
      seq: undefined,
      address,
      minute,
      count: 0,
      addresses: new Set(),
      operations: new Map(),
      httpStatus: 0,
      first: time,
      last: time,
    };
  }

  private count(
    summary: RefusalSummary,
    address: string,
    operation: string,
    httpStatus: number,
    now: Date,
  ): RefusalDecision {
    summary.count += 1;
    if (summary.addresses.size < MAX_ADDRESSES) summary.addresses.add(address);
    const known = summary.operations.get(operation);
    if (known !== undefined || summary.operations.size < MAX_OPERATIONS)
      summary.operations.set(operation, (known ?? 0) + 1);
    summary.httpStatus = httpStatus;
    summary.last = now.toISOString();
    return { kind: 'summary', summary };
  }
}

/** A summary's parameters and message, as its audit entry shows them. */
export function describeSummary(summary: RefusalSummary): {
  parameters: Record<string, string>;
  message: string;
} {
  const operations = [...summary.operations]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  const from =
    summary.address === '*'
      ? `from ${summary.addresses.size}${summary.addresses.size >= MAX_ADDRESSES ? ' or more' : ''} addresses`
      : 'from this address';
  return {
    parameters: {
      count: String(summary.count),
      operations,
      first: summary.first,
      last: summary.last,
      ...(summary.address === '*' ? { addresses: String(summary.addresses.size) } : {}),
    },
    message: `${summary.count} more calls refused without valid credentials ${from} in this minute, counted here instead of recorded one by one.`,
  };
}
