import { randomBytes } from 'node:crypto';
import net from 'node:net';
import WebSocket from 'ws';

/**
 * Raw-socket tools for attacking the headless host the way a hostile or broken peer
 * would: hand-written upgrade requests and hand-built WebSocket frames, which no
 * well-behaved client library would send.
 */

export interface RawPeer {
  socket: net.Socket;
  /** Everything the host sent so far. */
  received(): Buffer;
  /** Resolves when the host's bytes contain `text` (or these bytes). */
  waitFor(text: string | Buffer): Promise<string>;
  /** Resolves when the host closed or reset the connection. */
  closed: Promise<void>;
}

export function rawConnect(port: number): Promise<RawPeer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    const waiters: { text: string | Buffer; resolve: (s: string) => void }[] = [];
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      for (const w of [...waiters]) {
        if (data.includes(w.text)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(data.toString('latin1'));
        }
      }
    });
    // A reset from either side is expected in these tests.
    socket.on('error', () => undefined);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        waitFor: (text) =>
          new Promise((done) => {
            if (data.includes(text)) done(data.toString('latin1'));
            else waiters.push({ text, resolve: done });
          }),
        closed,
      }),
    );
    socket.once('error', reject);
  });
}

export function upgradeRequest(port: number, headers: Record<string, string> = {}, path = '/ws'): string {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    'Sec-WebSocket-Version: 13',
    `Origin: http://127.0.0.1:${port}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Opens an authorized WebSocket by hand and returns the raw socket after the 101. */
export async function rawWebSocket(port: number, scriptToken: string): Promise<RawPeer> {
  const peer = await rawConnect(port);
  peer.socket.write(upgradeRequest(port, { Authorization: `Bearer ${scriptToken}` }));
  const head = await peer.waitFor('\r\n\r\n');
  if (!head.startsWith('HTTP/1.1 101')) throw new Error(`upgrade refused: ${head.split('\r\n')[0]}`);
  return peer;
}

export interface FrameOptions {
  opcode?: number;
  fin?: boolean;
  rsv1?: boolean;
  masked?: boolean;
  /** Claim this payload length in the header (the body sent may be shorter). */
  claimedLength?: number;
}

/** One WebSocket frame, built by hand (RFC 6455 §5.2). */
export function frame(payload: Buffer, options: FrameOptions = {}): Buffer {
  const { opcode = 0x1, fin = true, rsv1 = false, masked = true } = options;
  const length = options.claimedLength ?? payload.length;
  const first = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([first, (masked ? 0x80 : 0) | length]);
  } else if (length < 65_536) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = (masked ? 0x80 : 0) | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = (masked ? 0x80 : 0) | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!masked) return Buffer.concat([header, payload]);
  const mask = randomBytes(4);
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([header, mask, body]);
}

/** A well-behaved client: connects with the script token as a bearer and asks app:info. */
export async function askAppInfo(port: number, scriptToken: string): Promise<{ ok: boolean; mode?: string }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { origin: `http://127.0.0.1:${port}`, headers: { authorization: `Bearer ${scriptToken}` } });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)));
    });
    ws.send(JSON.stringify({ id: 1, command: 'app:info', input: {} }));
    const answer = await new Promise<{ type: string; id?: number; result?: { ok: boolean; value?: { mode?: string } } }>((resolve) => {
      ws.on('message', (data) => {
        const parsed = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : '') as {
          type: string;
          id?: number;
          result?: { ok: boolean; value?: { mode?: string } };
        };
        if (parsed.type === 'result' && parsed.id === 1) resolve(parsed);
      });
    });
    return { ok: answer.result?.ok ?? false, ...(answer.result?.value?.mode ? { mode: answer.result.value.mode } : {}) };
  } finally {
    ws.terminate();
  }
}
