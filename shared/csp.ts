/**
 * The renderer's Content Security Policy, one string for both hosts: Electron sends it
 * as a header on every response of the app protocol, the headless host on every page.
 * No remote content, no inline script, no eval; connections only back to our own origin
 * (which, in CSP 3, includes ws: to the same host and port).
 */
export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');
