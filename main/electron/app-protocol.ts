import { readFile } from 'node:fs/promises';
import { RENDERER_CSP } from '../../shared/csp';
import { contentTypeOf, resolveInside } from '../core/renderer-files';
import type { ProtocolApi } from './electron-api';

export { resolveInside } from '../core/renderer-files';

/**
 * The renderer is loaded from `app://renderer/…`, never from file:// or the network:
 * a custom standard scheme gives the page a real origin of its own (so the IPC door can
 * check it and 'self' in the CSP means exactly our files), and every response goes
 * through one handler that serves only the built renderer and always sets the CSP.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'renderer';
export const RENDERER_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** Headers on every answer of the scheme, files and refusals alike. */
export const APP_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': RENDERER_CSP,
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
};

/** True for a URL of our renderer origin (`app://renderer`), whatever its path. */
export function isRendererUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    // WHATWG gives non-special schemes an opaque origin ('null'), so compare the parts.
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

/**
 * Must run before the app is ready. `standard` gives the scheme real origins and
 * relative URL resolution (the Vite build uses `base: './'`); `secure` makes the page a
 * secure context; `supportFetchAPI` and `corsEnabled` let Chromium load the build's
 * module scripts (always fetched in CORS mode) from it. Nothing here lets another
 * origin read our files: responses carry no Access-Control-Allow-Origin.
 */
export function registerAppScheme(protocol: Pick<ProtocolApi, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true, stream: false },
    },
  ]);
}

export interface AppProtocolOptions {
  rootDir: string;
  /** Injected for tests; fs.readFile reads inside app.asar under Electron as well. */
  readFile?: (file: string) => Promise<Uint8Array>;
}

function refuse(status: 403 | 404 | 405, text: string): Response {
  return new Response(text, {
    status,
    headers: { ...APP_RESPONSE_HEADERS, 'content-type': 'text/plain; charset=utf-8' },
  });
}

/** The scheme's one handler; pure enough to test under Node with a real Request. */
export function createAppProtocolHandler(options: AppProtocolOptions): (request: Request) => Promise<Response> {
  const read = options.readFile ?? ((file: string) => readFile(file));
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(405, 'Method not allowed.');
    if (!isRendererUrl(request.url)) return refuse(403, 'Forbidden.');
    const file = resolveInside(options.rootDir, new URL(request.url).pathname);
    if (!file) return refuse(404, 'Not found.');
    let body: Uint8Array;
    try {
      body = await read(file);
    } catch {
      return refuse(404, 'Not found.');
    }
    const type = contentTypeOf(file);
    const headers: Record<string, string> = { ...APP_RESPONSE_HEADERS, 'content-type': type };
    // The page must always match the bundle it names; the hashed assets may be cached.
    if (type.startsWith('text/html')) headers['cache-control'] = 'no-store';
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
  };
}

/** Must run after the app is ready (protocol.handle registers on the default session). */
export function installAppProtocol(protocol: Pick<ProtocolApi, 'handle'>, rootDir: string): void {
  protocol.handle(APP_SCHEME, createAppProtocolHandler({ rootDir }));
}
