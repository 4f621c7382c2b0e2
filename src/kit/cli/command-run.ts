import type { Format, PipelineClient } from '../index.ts';
import type { OptionValues } from './usage.ts';

/** What a command runs with: the client, its arguments, its checked options and its printers. */
export interface CommandRun {
  readonly client: PipelineClient;
  readonly command: string;
  /** The first and second arguments after the command. */
  readonly target: string | undefined;
  readonly extra: string | undefined;
  readonly values: OptionValues;
  readonly wire: Format;
  readonly page: { index: number | undefined; pageSize: number | undefined };
  readonly okStatuses: readonly string[];
  readonly waitTimeoutS: number;
  readonly write: (text: string) => void;
  readonly progress: (text: string) => void;
  /** Prints `data` as JSON with --json, else `human()`. */
  readonly out: (data: unknown, human: () => string) => void;
  /** Prints an ExecuteResponse. */
  readonly done: (result: {
    status: string;
    message: string;
    rowCount?: number | undefined;
    requestId?: string | undefined;
  }) => void;
  /** An argument or option a command needs, or a UsageError naming it. */
  readonly need: (value: string | undefined, what: string) => string;
}

/** A command: its exit status (EXIT). */
export type Command = (run: CommandRun) => Promise<number>;

/** A change of one request (retry, cancel) or one pipeline (resume, suspend), named by its id. */
export const changeOne =
  (change: 'retry' | 'cancel' | 'resume' | 'suspend', what: string): Command =>
  async ({ client, target, wire, done, need }) => {
    done(await client[change](need(target, what), wire));
    return 0;
  };
