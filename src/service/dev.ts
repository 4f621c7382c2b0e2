import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './app.ts';
import { readConfig } from './config.ts';
import { SERVICE_NODE_FLAGS } from './node-flags.ts';

// `npm run dev`: the embedded service and the Vite dev server side by side. With
// PIPELINE_SERVICE_URL set, only Vite runs, proxying to that service instead.

const children: ChildProcess[] = [];
const external = process.env.PIPELINE_SERVICE_URL;
if (!external) {
  children.push(
    spawn(
      process.execPath,
      [
        ...SERVICE_NODE_FLAGS,
        join(REPO_ROOT, 'src/service/launch.mjs'),
        join(REPO_ROOT, 'src/service/main.ts'),
        ...process.argv.slice(2),
      ],
      {
        cwd: REPO_ROOT,
        stdio: 'inherit',
      },
    ),
  );
}
// Vite proxies to the embedded service wherever its flags put it.
const { host, port } = readConfig(process.argv.slice(2), process.env);
const target = external ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
children.push(
  spawn(process.execPath, [join(REPO_ROOT, 'node_modules/vite/bin/vite.js')], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    env: { ...process.env, PIPELINE_SERVICE_URL: target },
  }),
);

const stop = (): void => {
  for (const child of children) child.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of children)
  child.on('exit', (code) => {
    if (code !== 0 && code !== null) stop();
  });
