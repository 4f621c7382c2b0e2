/**
 * The path the server serves the dashboard and its APIs under (`--base-path`, e.g.
 * `/pipelines`), or '' at the root. The server writes it into the page it serves as
 * `<meta name="pipeline-base-path">` (src/service/http/dashboard-files.ts), so one build
 * serves under any path; the Vite dev server's page has no such tag (the root).
 */
export const BASE_PATH: string =
  (typeof document === 'undefined'
    ? null
    : document.querySelector('meta[name="pipeline-base-path"]')?.getAttribute('content')) ?? '';
