import type { Logger } from '../core/base/ports';
import type { SessionApi, WebContentsApi } from './electron-api';

/** Keeps only scheme and host of a URL for the log: paths and queries may carry tokens. */
export function urlForLog(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.host ? `${parsed.protocol}//${parsed.host}` : parsed.protocol;
  } catch {
    return '(invalid url)';
  }
}

/**
 * Applied to every webContents the app ever creates (via `web-contents-created`), so no
 * page, present or future, can navigate away from our files, open windows or attach a
 * webview. The renderer is a single-page app: it never needs to navigate. Links to the
 * outside world go through a contract command that main checks, not through the page.
 */
export function hardenWebContents(contents: WebContentsApi, log: Logger): void {
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    log.warn('navigation blocked', { url: urlForLog(url) });
  });
  contents.on('will-redirect', (event, url) => {
    event.preventDefault();
    log.warn('redirect blocked', { url: urlForLog(url) });
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    log.warn('webview blocked');
  });
  contents.setWindowOpenHandler(({ url }) => {
    log.warn('new window blocked', { url: urlForLog(url) });
    return { action: 'deny' };
  });
}

/**
 * The renderer needs no camera, microphone, notifications, clipboard reads, geolocation
 * or anything else a permission guards; both the prompt path and the silent check path
 * answer no, for every origin.
 */
export function denyAllPermissions(session: SessionApi, log: Logger): void {
  session.setPermissionRequestHandler((_webContents, permission, callback) => {
    log.warn('permission request denied', { permission });
    callback(false);
  });
  session.setPermissionCheckHandler(() => false);
}
