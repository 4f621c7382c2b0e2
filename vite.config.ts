import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// In development the dashboard talks to a service through this proxy; PIPELINE_SERVICE_URL
// points it at another one (a real pipeline service, say) instead of the embedded one.
const target = process.env.PIPELINE_SERVICE_URL ?? 'http://127.0.0.1:25080';
const proxy = Object.fromEntries(
  ['/pipelineapi', '/services', '/mcapi', '/api'].map((prefix) => [
    prefix,
    { target, changeOrigin: true },
  ]),
);

export default defineConfig({
  plugins: [react(), tailwindcss()],
  // Relative URLs: one build serves under any --base-path. The server writes the base path
  // into index.html as it serves it (src/service/http/dashboard-files.ts); the chunks
  // import each other relative to their own URLs.
  base: './',
  server: { host: '127.0.0.1', port: 5173, proxy },
  preview: { host: '127.0.0.1', proxy },
  // No source maps in the build: served next to the bundle they would hand anyone who asks
  // the dashboard's whole source, comments included.
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: {
      output: {
        // A language other than English (i18n/catalogues.ts) loads as one chunk, not one
        // request per namespace.
        manualChunks: (id) => {
          const language = /\/i18n\/locales\/([\w-]+)\/[^/]+\.json$/.exec(id)?.[1];
          return language && language !== 'en' ? `locale-${language}` : undefined;
        },
      },
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    environment: 'node',
    pool: 'forks',
    // One fork per core, not Vitest's default of one fewer: most test files wait on servers,
    // child processes and timers rather than compute, and on a two-core machine the default
    // ran them one at a time (13 minutes instead of 7).
    maxWorkers: availableParallelism(),
    // The default reporter, and the ten slowest files at the end (issue 43's budget).
    reporters: ['default', './src/test-run/vitest-slowest.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
