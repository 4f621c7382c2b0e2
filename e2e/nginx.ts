import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/service/testing/child.ts';

/*
 * Debian's nginx in front of the dashboard as an operator deploys it (docs/deploy/README.md),
 * run as a test's own child (no daemon, no master process, every file in a temporary folder):
 * one server, or several gateways taken in turn, passed over while one is down.
 */

const NGINX = '/usr/sbin/nginx';

export interface Proxy {
  readonly url: string;
  readonly folder: string;
  readonly child: ChildProcess;
}

/** Resolves once something accepts connections on the port. */
async function listening(port: number, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(
        `nginx did not start: ${existsSync(log) ? readFileSync(log, 'utf8') : '(no log)'}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * nginx forwarding every path to `servers` (origins, `http://127.0.0.1:port`) in turn, as
 * docs/deploy/nginx-site.conf does, but every path forwarded: the service itself must be the
 * one that answers nothing outside its base path. `forwardedFor`: the client address nginx
 * tells (what it would set from a real client's $remote_addr; here every client is local).
 */
export async function startNginx(
  servers: readonly string[],
  options: { readonly forwardedFor?: string } = {},
): Promise<Proxy> {
  const folder = mkdtempSync(join(tmpdir(), 'pipeline-nginx-'));
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(folder, temp));
  const port = await freePort();
  const errorLog = join(folder, 'error.log');
  const conf = `
daemon off;
master_process off;
pid ${join(folder, 'nginx.pid')};
error_log ${errorLog} warn;
events { worker_connections 64; }
http {
  access_log ${join(folder, 'access.log')};
  client_body_temp_path ${join(folder, 'body')};
  proxy_temp_path ${join(folder, 'proxy')};
  fastcgi_temp_path ${join(folder, 'fastcgi')};
  uwsgi_temp_path ${join(folder, 'uwsgi')};
  scgi_temp_path ${join(folder, 'scgi')};
  upstream services {
${servers.map((server) => `    server ${server.replace(/^http:\/\//, '')} max_fails=1 fail_timeout=5s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://services;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-For ${options.forwardedFor ?? '$remote_addr'};
    }
  }
}
`;
  const confFile = join(folder, 'nginx.conf');
  writeFileSync(confFile, conf);
  const child = spawn(NGINX, ['-p', folder, '-c', confFile, '-e', errorLog], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await listening(port, child, errorLog);
  return { url: `http://127.0.0.1:${port}`, folder, child };
}

export async function stopNginx(proxy: Proxy): Promise<void> {
  const exited = new Promise((resolve) => proxy.child.once('exit', resolve));
  if (proxy.child.exitCode === null) proxy.child.kill('SIGTERM');
  await exited;
  rmSync(proxy.folder, { recursive: true, force: true });
}
