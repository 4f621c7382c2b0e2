// The charset of an answer, as the service states it: a byte-order mark, the Content-Type's
// `charset`, an XML declaration's `encoding` or an HTML `<meta>`; UTF-8 when none does.
// Japanese products commonly answer in Shift_JIS or EUC-JP. Decoding is the platform's
// TextDecoder (the WHATWG Encoding Standard's labels and tables), never a table of ours.

/** How many leading bytes are looked at for a declaration (the HTML standard's 1024). */
export const SNIFF_BYTES = 1024;

const BOMS: readonly [readonly number[], string][] = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/** The `charset` parameter of a Content-Type, if any. */
export function contentTypeCharset(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1];
}

/** The charset an XML declaration or HTML meta names in the first bytes, if any. */
export function declaredCharset(head: Uint8Array): string | undefined {
  // Every charset such a declaration may name is ASCII-compatible up to it: read as Latin-1.
  let text = '';
  const end = Math.min(head.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) text += String.fromCharCode(head[i] as number);
  return (
    /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([^"']+)["']/i.exec(text)?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([^"'\s;/>]+)/i.exec(text)?.[1]
  );
}

/** A charset label the platform decodes, in its canonical name, or undefined. */
export function knownCharset(label: string): string | undefined {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

export interface ChosenCharset {
  /** The canonical name to decode with. */
  readonly charset: string;
  /** Where it came from. */
  readonly from: 'bom' | 'content-type' | 'document' | 'default';
  /** A label the answer stated that no decoder knows (the answer is read as `charset`). */
  readonly unknown?: string;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    // A sequence cut at the end of the sample is not a fault of the text.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The charset to decode an answer with, from its Content-Type and first bytes (or all of
 * them: declarations are looked for in the first SNIFF_BYTES alone, but the UTF-8 check
 * below is then over the whole). A BOM wins;
 * then the Content-Type; then the document's own declaration. When the Content-Type says
 * UTF-8 (or a text default) but the document declares another charset and its bytes are
 * not UTF-8, the document is believed: the header is a server's default, the declaration
 * the product's own words.
 */
export function chooseCharset(contentType: string, head: Uint8Array): ChosenCharset {
  for (const [bom, charset] of BOMS)
    if (bom.every((b, i) => head[i] === b)) return { charset, from: 'bom' };
  const headerLabel = contentTypeCharset(contentType);
  const documentLabel = declaredCharset(head);
  const header = headerLabel === undefined ? undefined : knownCharset(headerLabel);
  const document = documentLabel === undefined ? undefined : knownCharset(documentLabel);
  if (header && document && header !== document && header === 'utf-8' && !isUtf8(head))
    return { charset: document, from: 'document' };
  if (header) return { charset: header, from: 'content-type' };
  if (document) return { charset: document, from: 'document' };
  const unknown = headerLabel ?? documentLabel;
  return { charset: 'utf-8', from: 'default', ...(unknown === undefined ? {} : { unknown }) };
}

/** Decodes a whole answer's bytes by the charset it states. */
export function decodeAnswer(contentType: string, bytes: Uint8Array): string {
  // All the bytes, not the first SNIFF_BYTES: whether a UTF-8 header is believed over the
  // document's own declaration is told by the bytes being UTF-8, and a list's first
  // non-ASCII name may come long after its first kilobyte.
  const { charset } = chooseCharset(contentType, bytes);
  return new TextDecoder(charset).decode(bytes);
}
