/**
 * Whether the text holds anything a browser's URL parser would drop or read as a separator:
 * control characters (tab and newline are stripped, which turns `/\t/host` into `//host`),
 * spaces, and backslashes (read as `/` in http URLs).
 */
function hasUnsafeCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}

// A second slash or a backslash right after the first makes a scheme-relative URL: another host.
const NOT_ONE_SLASH = /^(?!\/(?![/\\]))/;
const BASE = 'http://dashboard.invalid';

/**
 * The `next` parameter of the sign-in page as a path of this dashboard, or undefined when it
 * is anything else: another origin (`//host`, `/\host`, `https://…`), a scheme
 * (`javascript:`), text that does not decode, or a path that decodes into one of those.
 * Only a path that passes may follow sign-in, so the page cannot be made to send a user
 * elsewhere, and the router never receives a URL it would throw on.
 */
export function safeNextPath(next: string | null | undefined): string | undefined {
  if (!next || NOT_ONE_SLASH.test(next) || hasUnsafeCharacter(next)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(next);
  } catch {
    // A malformed escape (`/%E0%A4%A`) would make the router throw later.
    return undefined;
  }
  // Encoded slashes and backslashes (`/%5Chost`, `/%2F%2Fhost`) are no better once decoded.
  if (NOT_ONE_SLASH.test(decoded)) return undefined;
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return undefined;
  }
  // Belt and braces: whatever the checks above missed, the browser's own reading decides.
  if (url.origin !== BASE) return undefined;
  return `${url.pathname}${url.search}${url.hash}`;
}
