import { describe, expect, it } from 'vitest';
import { safeNextPath } from './next.ts';

describe('the next path after sign-in', () => {
  it('keeps paths of the dashboard, with their query and fragment', () => {
    expect(safeNextPath('/')).toBe('/');
    expect(safeNextPath('/requests?pipeline=pl_1&date=20261121')).toBe(
      '/requests?pipeline=pl_1&date=20261121',
    );
    expect(safeNextPath('/requests/pl_1-20261121_09-000001?tab=raw#log')).toBe(
      '/requests/pl_1-20261121_09-000001?tab=raw#log',
    );
    // An encoded backslash inside the query is only a search text.
    expect(safeNextPath('/pipelines?q=a%5Cb')).toBe('/pipelines?q=a%5Cb');
  });

  it('ignores nothing, and anything that is not a path', () => {
    expect(safeNextPath(null)).toBeUndefined();
    expect(safeNextPath(undefined)).toBeUndefined();
    expect(safeNextPath('')).toBeUndefined();
    expect(safeNextPath('requests')).toBeUndefined();
    expect(safeNextPath('https://evil.example/')).toBeUndefined();
    expect(safeNextPath('javascript:alert(1)')).toBeUndefined();
    expect(safeNextPath(' /requests')).toBeUndefined();
  });

  it('refuses paths a browser reads as another host', () => {
    expect(safeNextPath('//evil.example')).toBeUndefined();
    expect(safeNextPath('/\\evil.example')).toBeUndefined();
    expect(safeNextPath('/\\/evil.example')).toBeUndefined();
    expect(safeNextPath('\\\\evil.example')).toBeUndefined();
    // Tab and newline vanish in the URL parser, leaving `//evil.example`.
    expect(safeNextPath('/\t/evil.example')).toBeUndefined();
    expect(safeNextPath('/\n/evil.example')).toBeUndefined();
  });

  it('refuses paths that decode into another host, or do not decode', () => {
    expect(safeNextPath('/%5Chost')).toBeUndefined();
    expect(safeNextPath('/%5chost')).toBeUndefined();
    expect(safeNextPath('/%2F%2Fhost')).toBeUndefined();
    expect(safeNextPath('/%2fhost')).toBeUndefined();
    expect(safeNextPath('/%E0%A4%A')).toBeUndefined();
    expect(safeNextPath('/%')).toBeUndefined();
  });
});
