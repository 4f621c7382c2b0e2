import { TextEncoder } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseCharset } from '../../kit/charset.ts';
import { xmlToTree } from '../../kit/index.ts';
import { CallLimiter, retryAfterMs } from './limiter.ts';
import { REDACTED, Redactor } from './redactor.ts';
import { XmlStreamError, XmlTreeStream } from './xml-stream.ts';
import { normalDate } from './zone.ts';

// The pieces an upstream's answer passes through before anything else sees it: its charset,
// its secrets cut out as it streams, its XML read in chunks, its dates in one form.

const ascii = (text: string) => new TextEncoder().encode(text);

describe('the charset of an answer', () => {
  it('is what the Content-Type, else the XML declaration or HTML meta, states', () => {
    expect(chooseCharset('text/xml; charset=Shift_JIS', ascii('<?xml version="1.0"?>'))).toEqual({
      charset: 'shift_jis',
      from: 'content-type',
    });
    expect(
      chooseCharset('text/xml', ascii('<?xml version="1.0" encoding="EUC-JP"?><a/>')).charset,
    ).toBe('euc-jp');
    expect(
      chooseCharset('text/html', ascii('<html><head><meta charset="shift_jis"></head>')).charset,
    ).toBe('shift_jis');
    expect(chooseCharset('text/plain', ascii('hello'))).toEqual({
      charset: 'utf-8',
      from: 'default',
    });
  });

  it('believes the document over a header that says UTF-8 when the bytes are not', () => {
    const sjis = new Uint8Array([
      ...ascii('<?xml version="1.0" encoding="Shift_JIS"?><m>'),
      0x83,
      0x74,
      0x83,
      0x40,
    ]);
    expect(chooseCharset('text/xml; charset=UTF-8', sjis)).toEqual({
      charset: 'shift_jis',
      from: 'document',
    });
  });

  it('reads an unknown label as UTF-8 and says which label it did not know', () => {
    expect(chooseCharset('text/xml; charset=x-klingon', ascii('<a/>'))).toEqual({
      charset: 'utf-8',
      from: 'default',
      unknown: 'x-klingon',
    });
  });
});

describe('the redactor', () => {
  const key = 'vendor-key-0123456789abcdef';

  it('cuts a key out wherever chunk ends fall', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (before, after, cuts) => {
          const text = `${before}${key}${after}`;
          const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const stream = new Redactor([key]).stream();
          let out = '';
          let from = 0;
          for (const cut of [...at, text.length]) {
            out += stream.push(text.slice(from, cut));
            from = cut;
          }
          out += stream.flush();
          expect(out).not.toContain(key);
          expect(out).toBe(new Redactor([key]).redact(text));
          expect(out).toContain(REDACTED);
        },
      ),
    );
  });

  it('cuts a key out in its URL-encoded form too, and leaves short secrets alone', () => {
    const redactor = new Redactor(['k+y/=secret', 'abc']);
    expect(redactor.redact('Location: /login?key=k%2By%2F%3Dsecret abc')).toBe(
      `Location: /login?key=${REDACTED} abc`,
    );
  });
});

describe('an XML answer read in chunks', () => {
  const samples = [
    '<?xml version="1.0" encoding="UTF-8"?><RequestList><Request><RequestId>pl_1-20261124_09-000001</RequestId><Status>Finish</Status></Request><Info><Index>0</Index><Next>-1</Next><Count>1</Count><Error>false</Error></Info></RequestList>',
    '<Result><Info><Index>0</Index></Info><Header><Item><Name>ID</Name><Type>BIGINT</Type><Key>true</Key></Item></Header><Record><Item>1</Item><Item isnull="true"/><Item></Item><Item> a &amp; b </Item></Record><Status>OK</Status></Result>',
    '<RequestDetail><RequestId>x</RequestId><SensorFile><![CDATA[a<b>.csv]]></SensorFile><RequestLog></RequestLog></RequestDetail>',
    '<ExecuteResponse><Status>Error</Status><Message>ファイル &lt;x&gt; を読めません</Message></ExecuteResponse>',
  ];

  it('gives the tree the kit gives for the whole text, wherever it is cut', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...samples),
        fc.array(fc.nat(), { maxLength: 8 }),
        (xml, cuts) => {
          const stream = new XmlTreeStream();
          let from = 0;
          for (const cut of [...new Set(cuts.map((c) => c % xml.length))].sort((a, b) => a - b)) {
            stream.write(xml.slice(from, cut));
            from = cut;
          }
          stream.write(xml.slice(from));
          expect(stream.close()).toEqual(xmlToTree(xml));
        },
      ),
    );
  });

  it('hands records over one by one, leaving them out of the tree', () => {
    const seen: unknown[] = [];
    const stream = new XmlTreeStream({
      parent: 'RequestList',
      child: 'Request',
      onRecord: (r) => seen.push(r),
    });
    stream.write(
      '<RequestList><Request><RequestId>a</RequestId></Request><Request><RequestId>b</RequestId></Request><Info><Count>2</Count></Info></RequestList>',
    );
    expect(stream.close()).toEqual({ RequestList: { Request: [], Info: { Count: 2 } } });
    expect(seen).toEqual([{ RequestId: 'a' }, { RequestId: 'b' }]);
  });

  it('names what is wrong with a malformed or truncated answer', () => {
    const broken = new XmlTreeStream();
    broken.write('<RequestList><Request>');
    expect(() => broken.close()).toThrow(XmlStreamError);
    expect(() => new XmlTreeStream().write('<a></b>')).toThrow(/unexpected close tag/);
  });
});

describe('a vendor date', () => {
  it('takes one form whatever the vendor wrote, keeping the zone it carried', () => {
    for (const [given, date, zone] of [
      ['2026-11-24 09:05:01', '2026-11-24 09:05:01', undefined],
      ['2026/11/24 09:05:01', '2026-11-24 09:05:01', undefined],
      ['2026-11-24T09:05:01', '2026-11-24 09:05:01', undefined],
      ['2026-11-24 09:05:01.123', '2026-11-24 09:05:01', undefined],
      ['2026-11-24 09:05:01 JST', '2026-11-24 09:05:01', 'JST'],
      ['2026-11-24T09:05:01.5+09:00', '2026-11-24 09:05:01', '+09:00'],
      ['', '', undefined],
      ['soon', 'soon', undefined],
    ] as const)
      expect(normalDate(given), given).toEqual({ date, zone });
  });
});

describe('the call limiter', () => {
  it('lets at most its bound run at once, and lowers it to what a refusal showed', async () => {
    const limiter = new CallLimiter(3);
    let running = 0;
    let most = 0;
    const call = () =>
      limiter.run(async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
      });
    await Promise.all(Array.from({ length: 10 }, call));
    expect(most).toBe(3);
    limiter.refused(3);
    expect(limiter.limit).toBe(2);
    most = 0;
    await Promise.all(Array.from({ length: 10 }, call));
    expect(most).toBe(2);
    limiter.reset();
    expect(limiter.limit).toBe(3);
  });

  it('reads Retry-After in seconds or as a date', () => {
    const now = Date.parse('2026-11-24T00:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('Tue, 24 Nov 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
