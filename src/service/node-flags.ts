/**
 * Node's flags for the service process, as package.json's `start` and `service` scripts
 * pass them (launch.test.ts holds the scripts to this list) and as tests and `npm run dev`
 * start it.
 *
 * A young generation of 4 MB semi-spaces on the main thread instead of Node's 16: the main
 * thread answers the API and passes batches between the engine's threads, and under an
 * ingest V8 grew its young generation to the full 32 MB. Three runs of the ingest benchmark
 * each (three rounds per run) measured a peak RSS of 204–214 MB against 242–251 MB, with
 * no loss in the ingest ratio or the light reads' p99.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
