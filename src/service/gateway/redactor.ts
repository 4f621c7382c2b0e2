// Upstream text is data (issue 23): a vendor may repeat the key it was sent in an error, a
// page echoing request headers or a redirect's Location. Every configured upstream key, and
// every SESSIONID an upstream set, is cut out of its text before that text reaches an
// answer, the audit, a log, a notification or /readyz.

export const REDACTED = '[redacted]';

/** Secrets shorter than this are not searched for: they would cut ordinary words apart. */
const SHORTEST = 6;

export class Redactor {
  private readonly secrets = new Set<string>();
  private longest = 0;

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  /** A secret to cut out from now on (a key at start, a SESSIONID when an upstream sets one). */
  add(secret: string): void {
    if (secret.length < SHORTEST) return;
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      this.secrets.add(form);
      this.longest = Math.max(this.longest, form.length);
    }
  }

  /** The text with every secret replaced. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets)
      if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    return out;
  }

  /**
   * A redactor of text that arrives in chunks: a secret cut by a chunk's end is held back
   * until the next chunk completes it. `flush` gives what is held at the end.
   */
  stream(): { push(chunk: string): string; flush(): string } {
    let held = '';
    return {
      push: (chunk) => {
        const text = this.redact(held + chunk);
        const keep = Math.min(text.length, Math.max(0, this.longest - 1));
        held = text.slice(text.length - keep);
        return text.slice(0, text.length - keep);
      },
      flush: () => {
        const rest = this.redact(held);
        held = '';
        return rest;
      },
    };
  }
}
