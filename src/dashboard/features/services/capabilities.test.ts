import { describe, expect, it } from 'vitest';
import { byteSize, charsetName, pagingKind, roundedSeconds } from './capabilities.ts';

describe('pagingKind', () => {
  it('tells a whole day in one answer, a cap, pages as asked, and not yet known apart', () => {
    expect(pagingKind({ pagesize: 'ignored', cap: 500 })).toBe('whole');
    expect(pagingKind({ pagesize: 'honoured', cap: 500 })).toBe('capped');
    expect(pagingKind({ pagesize: 'unknown', cap: 1000 })).toBe('capped');
    expect(pagingKind({ pagesize: 'honoured', cap: undefined })).toBe('asked');
    expect(pagingKind({ pagesize: 'unknown', cap: undefined })).toBe('unknown');
  });
});

describe('charsetName', () => {
  it('writes a decoder’s name as servers declare it', () => {
    expect(charsetName('shift_jis')).toBe('Shift_JIS');
    expect(charsetName('euc-jp')).toBe('EUC-JP');
    expect(charsetName('utf-8')).toBe('UTF-8');
    expect(charsetName('gbk')).toBe('GBK');
  });
});

describe('byteSize', () => {
  it('keeps bytes below 1 KB exact', () => {
    expect(byteSize(1023)).toEqual({ unit: 'bytes', value: 1023, exact: true });
  });

  it('says whether KB and MB are rounded to one decimal', () => {
    expect(byteSize(1536)).toEqual({ unit: 'KB', value: 1.5, exact: true });
    expect(byteSize(7_654_321)).toEqual({ unit: 'MB', value: 7.3, exact: false });
    expect(byteSize(3 * 1024 ** 3)).toEqual({ unit: 'GB', value: 3, exact: true });
  });
});

describe('roundedSeconds', () => {
  it('rounds the poller’s wait to a tenth, saying when it did', () => {
    expect(roundedSeconds(2.5)).toEqual({ value: 2.5, exact: true });
    expect(roundedSeconds(12.345)).toEqual({ value: 12.3, exact: false });
  });
});
