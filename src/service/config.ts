import { parseArgs } from 'node:util';

export interface CliConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly apiKey: string | undefined;
  readonly adminPassword: string | undefined;
  readonly demo: boolean;
  readonly pipelinesFile: string | undefined;
  readonly workers: number;
  readonly buildIfMissing: boolean;
  readonly help: boolean;
}

export const USAGE = `Usage: npm start -- [options]

Runs the embedded pipeline service and serves the dashboard.

Options (each also read from the environment variable in brackets; a flag wins):
  --port <n>              port to listen on [PORT] (default 25080)
  --host <address>        address to listen on [HOST] (default 127.0.0.1)
  --data <folder>         databases, inbox/ and outbox/ [PIPELINE_DATA_DIR] (default ./data)
  --api-key <key>         provision this API key and enable the pipeline API [PIPELINE_API_KEY]
  --admin-password <pw>   password of the first administrator, admin [PIPELINE_ADMIN_PASSWORD]
  --no-demo               no demo pipelines, inputs or requests [PIPELINE_NO_DEMO=1]
  --pipelines <file>      pipeline definition file (YAML or JSON) [PIPELINE_DEFINITIONS]
  --workers <n>           requests run at once [PIPELINE_WORKERS] (default 2)
  --help                  this text
`;

function integer(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new Error(
      `${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`,
    );
  }
  return Number(text);
}

/** Reads flags and environment; throws an Error naming the bad option. */
export function readConfig(argv: readonly string[], env: NodeJS.ProcessEnv): CliConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      'api-key': { type: 'string' },
      'admin-password': { type: 'string' },
      'no-demo': { type: 'boolean' },
      pipelines: { type: 'string' },
      workers: { type: 'string' },
      'build-if-missing': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  const apiKey = values['api-key'] ?? env.PIPELINE_API_KEY;
  if (apiKey !== undefined && !/^[\x21-\x7e]{16,256}$/.test(apiKey)) {
    throw new Error('--api-key must be 16 to 256 printable ASCII characters without spaces');
  }
  return {
    host: values.host ?? env.HOST ?? '127.0.0.1',
    port: integer('--port', values.port ?? env.PORT ?? '25080', 0, 65535),
    dataDir: values.data ?? env.PIPELINE_DATA_DIR ?? 'data',
    apiKey,
    adminPassword: values['admin-password'] ?? env.PIPELINE_ADMIN_PASSWORD,
    demo: !(values['no-demo'] ?? ['1', 'true'].includes(env.PIPELINE_NO_DEMO ?? '')),
    pipelinesFile: values.pipelines ?? env.PIPELINE_DEFINITIONS,
    workers: integer('--workers', values.workers ?? env.PIPELINE_WORKERS ?? '2', 1, 64),
    buildIfMissing: values['build-if-missing'] ?? false,
    help: values.help ?? false,
  };
}
