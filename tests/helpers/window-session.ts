import http from 'node:http';
import { WINDOW_KEY_PROTOCOL_PREFIX, WINDOW_PROTOCOL } from '../../shared/window-session';

/** What a browser gets for an address: the status, the cookie and the key the handoff page carries. */
export interface OpenedAddress {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** `rt_session_<port>=…`, as a Cookie header; '' when none was set. */
  cookie: string;
  /** The window key in the handoff page; '' when the answer had none. */
  windowKey: string;
  body: string;
}

/** Opens an address as a browser's first request would (no redirect followed). */
export function openAddress(url: string, headers: Record<string, string> = {}): Promise<OpenedAddress> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            cookie: (res.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '',
            windowKey: /name="runner-tray-window-key" content="([\w-]+)"/.exec(body)?.[1] ?? '',
            body,
          }),
        );
      })
      .on('error', reject);
  });
}

/** The subprotocols a window's page offers on its WebSocket. */
export function windowProtocols(windowKey: string): string[] {
  return [WINDOW_PROTOCOL, `${WINDOW_KEY_PROTOCOL_PREFIX}${windowKey}`];
}
