import { describe, expect, it } from 'vitest';
import { BOUNDS, USAGE, readBasePath, readConfig, readTrustProxy } from './config.ts';

const read = (argv: string[], env: NodeJS.ProcessEnv = {}, terminal = false) =>
  readConfig(argv, env, terminal);

describe('--trust-proxy', () => {
  it('trusts no proxy unless told', () => {
    expect(read([]).trustProxy).toEqual([]);
    expect(read([], { PIPELINE_TRUST_PROXY: '' }).trustProxy).toEqual([]);
  });

  it('takes addresses, CIDRs and proxy-addr names, comma-separated, from the flag or the variable', () => {
    expect(
      read(['--trust-proxy', '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback']).trustProxy,
    ).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
    expect(read([], { PIPELINE_TRUST_PROXY: '192.168.1.10' }).trustProxy).toEqual(['192.168.1.10']);
    // The flag wins over the variable.
    expect(
      read(['--trust-proxy', '10.1.1.1'], { PIPELINE_TRUST_PROXY: '10.2.2.2' }).trustProxy,
    ).toEqual(['10.1.1.1']);
  });

  it.each([
    ['a name', 'proxy.example.com', '"proxy.example.com" is not an IP address or a CIDR'],
    ['an address out of range', '300.1.1.1', '"300.1.1.1"'],
    ['too many bits', '10.0.0.0/33', '"10.0.0.0/33"'],
    ['too many bits for IPv6', '::1/129', '"::1/129"'],
    ['bits that are no number', '10.0.0.0/x', '"10.0.0.0/x"'],
    ['two slashes', '10.0.0.0/8/8', '"10.0.0.0/8/8"'],
    ['an empty entry', '127.0.0.1,,10.0.0.1', '""'],
    ['everyone', 'true', '"true"'],
    ['a space instead of a comma', '127.0.0.1 10.0.0.1', '"127.0.0.1 10.0.0.1"'],
  ])('refuses %s, naming the flag and the entry', (_what, value, words) => {
    expect(() => read(['--trust-proxy', value])).toThrow(/^--trust-proxy: /);
    expect(() => read(['--trust-proxy', value])).toThrow(words);
    expect(() => read([], { PIPELINE_TRUST_PROXY: value })).toThrow(/^--trust-proxy: /);
  });

  it('checks every entry, not only the first', () => {
    expect(() => readTrustProxy('127.0.0.1,not-an-address')).toThrow('"not-an-address"');
  });
});

describe('--base-path', () => {
  it('serves at the root unless told', () => {
    expect(read([]).basePath).toBe('');
    expect(read([], { PIPELINE_BASE_PATH: '' }).basePath).toBe('');
  });

  it('takes a path of one or more segments from the flag or the variable', () => {
    expect(read(['--base-path', '/pipelines']).basePath).toBe('/pipelines');
    expect(read([], { PIPELINE_BASE_PATH: '/ops/pipe-lines_2.x~' }).basePath).toBe(
      '/ops/pipe-lines_2.x~',
    );
    expect(read(['--base-path', '/a'], { PIPELINE_BASE_PATH: '/b' }).basePath).toBe('/a');
  });

  it('refuses a path without its leading slash rather than guess it', () => {
    expect(() => read(['--base-path', 'pipelines'])).toThrow(
      '--base-path must start with /, as in /pipelines (not "pipelines")',
    );
    expect(() => read([], { PIPELINE_BASE_PATH: 'pipelines/' })).toThrow(/^--base-path must start/);
  });

  it('refuses a trailing slash, saying what to give instead', () => {
    expect(() => readBasePath('/pipelines/')).toThrow(
      '--base-path must not end with /: give "/pipelines"',
    );
    expect(() => readBasePath('/')).toThrow('--base-path /: leave the flag out');
  });

  it.each([
    ['an empty segment', '/a//b'],
    ['a dot segment', '/a/../b'],
    ['a query', '/a?b=1'],
    ['a space', '/a b'],
    ['markup', '/"><script>'],
    ['a percent escape', '/a%2fb'],
  ])('refuses %s', (_what, value) => {
    expect(() => readBasePath(value)).toThrow(/^--base-path/);
  });
});

describe('--log-format and LOG_LEVEL', () => {
  it('writes JSON lines unless stdout is a terminal, pretty lines on one', () => {
    expect(read([], {}, false).logFormat).toBe('json');
    expect(read([], {}, true).logFormat).toBe('pretty');
  });

  it('takes either format from the flag or the variable, whatever stdout is', () => {
    expect(read(['--log-format', 'pretty'], {}, false).logFormat).toBe('pretty');
    expect(read([], { PIPELINE_LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
  });

  it('refuses any other format, naming the flag', () => {
    expect(() => read(['--log-format', 'text'])).toThrow(
      '--log-format must be json or pretty, not "text"',
    );
    expect(() => read([], { PIPELINE_LOG_FORMAT: 'JSON' })).toThrow(/^--log-format/);
  });

  it('logs at info by default (the access lines), LOG_LEVEL otherwise', () => {
    expect(read([]).logLevel).toBe('info');
    expect(read([], { LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
    expect(() => read([], { LOG_LEVEL: 'verbose' })).toThrow(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "verbose"',
    );
  });
});

it('an unknown flag stops the start naming it', () => {
  expect(() => read(['--trust-proxies', '127.0.0.1'])).toThrow("'--trust-proxies'");
});

describe('--upstream-file-names', () => {
  const single = ['--upstream', 'http://127.0.0.1:9', '--upstream-key', 'k'];
  const entry = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const service = read([...single, ...argv], env).services?.[0];
    return service && !service.embedded ? service.fileNames : 'embedded';
  };

  it('is on unless turned off, by the flag or the variable', () => {
    expect(entry([])).toBeUndefined();
    expect(entry(['--upstream-file-names', 'off'])).toBe(false);
    expect(entry(['--upstream-file-names', 'on'])).toBe(true);
    expect(entry([], { PIPELINE_UPSTREAM_FILE_NAMES: 'off' })).toBe(false);
  });

  it('refuses another word, and the flag without --upstream', () => {
    expect(() => read([...single, '--upstream-file-names', 'yes'])).toThrow(
      '--upstream-file-names: on or off, not "yes"',
    );
    expect(() => read(['--upstream-file-names', 'off'])).toThrow(
      '--upstream-file-names goes with --upstream',
    );
  });
});

describe('--upstream with a secret in its URL (issue 39)', () => {
  it.each([
    ['a user and a password', 'http://user:s3cret-pw@127.0.0.1:9', 'a user name and a password'],
    ['a password alone', 'http://:s3cret-pw@127.0.0.1:9', 'a password'],
    ['a query', 'http://127.0.0.1:9/?key=s3cret-pw', 'a query'],
    ['a fragment', 'http://127.0.0.1:9/#s3cret-pw', 'a fragment'],
  ])('is refused for %s, naming what it carries and never the secret', (_, url, carried) => {
    let message = '';
    try {
      read(['--upstream', url, '--upstream-key', 'k']);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`--upstream carries ${carried},`);
    expect(message).toContain('--upstream-key');
    expect(message).not.toContain('s3cret-pw');
  });

  it('takes a URL of scheme, host, port and path', () => {
    const [entry] =
      read(['--upstream', 'https://pipelines.example:25080/base/', '--upstream-key', 'k'])
        .services ?? [];
    expect(entry && 'url' in entry ? entry.url : undefined).toBe(
      'https://pipelines.example:25080/base',
    );
  });
});

describe('--help', () => {
  it('names every bound a start takes, with its variable', () => {
    for (const [flag, variable] of BOUNDS) {
      expect(USAGE).toContain(`--${flag} <n>`);
      expect(USAGE).toContain(`[${variable}]`);
    }
  });
});
