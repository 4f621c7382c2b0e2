import { describe, expect, it } from 'vitest';
import { XmlStreamError, XmlTreeStream, XmlValueTooLargeError } from './xml-stream.ts';

// One value of an upstream's answer past the bound ends the read (issue 37, item 5), however
// the answer is cut into chunks; what is not one value (comments, many small texts) does not.

/** Writes `chunks` to a stream bounded at `bound` characters, and gives its tree or its error. */
function read(chunks: readonly string[], bound: number): unknown {
  const stream = new XmlTreeStream(undefined, bound);
  try {
    for (const chunk of chunks) stream.write(chunk);
    return stream.close();
  } catch (error) {
    return error;
  }
}

const letters = (n: number) => 'x'.repeat(n);

describe('an upstream answer read as a stream, with a bound on one value', () => {
  it('reads values up to the bound, and many of them, as one tree', () => {
    const many = Array.from({ length: 50 }, () => `<Message>${letters(100)}</Message>`);
    const tree = read(['<ExecuteResponse>', ...many, '</ExecuteResponse>'], 100);
    expect(tree).not.toBeInstanceOf(Error);
    expect(JSON.stringify(tree)).toContain(letters(100));
  });

  it('stops at a text past the bound, naming its element, however it is cut', () => {
    const whole = `<ExecuteResponse><Status>OK</Status><Message>${letters(5000)}</Message></ExecuteResponse>`;
    for (const size of [7, 100, 1000, whole.length]) {
      const chunks = whole.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? [];
      const error = read(chunks, 1000);
      expect(error, `chunks of ${size}`).toBeInstanceOf(XmlValueTooLargeError);
      expect(error).toMatchObject({ element: 'Message', boundCharacters: 1000 });
      expect((error as XmlValueTooLargeError).characters).toBeGreaterThan(1000);
    }
  });

  it('stops before the text ends: a value still open is bounded too', () => {
    const stream = new XmlTreeStream(undefined, 1000);
    stream.write('<ExecuteResponse><Message>');
    // Within the bound and the slack left for a tag's markup, the read goes on...
    for (let i = 0; i < 64; i++) stream.write(letters(1024));
    // ...past both, it stops while the text is still open, without waiting for its end.
    let stopped: unknown;
    try {
      stream.write(letters(2048));
    } catch (error) {
      stopped = error;
    }
    expect(stopped).toBeInstanceOf(XmlValueTooLargeError);
    expect(stopped).toMatchObject({ element: 'Message', characters: 1001, boundCharacters: 1000 });
  });

  it('reads a value of exactly the bound whose closing tag arrives in pieces', () => {
    const tree = read(['<R><M>', letters(1000), '</', 'M></R>'], 1000);
    expect(tree).not.toBeInstanceOf(Error);
  });

  it('counts text and CDATA of one element together, and an attribute alone', () => {
    const split = read(
      [`<R><Message>${letters(600)}<![CDATA[${letters(600)}]]></Message></R>`],
      1000,
    );
    expect(split).toMatchObject({ element: 'Message' });
    const attribute = read([`<R><Cell name="${letters(2000)}"/></R>`], 1000);
    expect(attribute).toBeInstanceOf(XmlValueTooLargeError);
    expect((attribute as XmlValueTooLargeError).element).toBe('Cell @name');
  });

  it('lets comments, whitespace between elements and many values add up past the bound', () => {
    const padding = Array.from({ length: 100 }, () => `<!--${letters(50)}-->\n  `);
    const tree = read(['<R>', ...padding, '<A>1</A>', ...padding, '</R>'], 1000);
    expect(tree).not.toBeInstanceOf(Error);
  });

  it('still names broken XML as broken, not as too large', () => {
    expect(read(['<R><A>1</B></R>'], 1000)).toBeInstanceOf(XmlStreamError);
  });
});
