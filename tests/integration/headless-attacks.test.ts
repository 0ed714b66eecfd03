import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHeadlessHost, type RunningHost } from '../e2e/headless-host';
import { askAppInfo, frame, rawConnect, rawWebSocket, upgradeRequest } from './raw-ws';

/**
 * The headless host faces anything that can open a TCP connection to 127.0.0.1. None of
 * these peers may take it down: after each attack the same host process still answers
 * a valid command.
 */
let emu: RunningEmulator;
let host: RunningHost;

beforeAll(async () => {
  emu = await startEmulator({ config: { pairingIntervalSec: 1 } });
  host = await startHeadlessHost(
    ['--control-plane', emu.url, '--allow-file-secret-store', '--token-file', 'TOKEN_FILE'],
    { RUNNER_TRAY_HEADLESS_MAX_CONNECTIONS: '4' },
    { addressFrom: 'token-file' },
  );
});

afterAll(async () => {
  await host?.stop();
  await emu?.close();
});

/** `promise`, or a clear failure as soon as the host process dies instead. */
function whileAlive<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    host.exited.then((code) => {
      throw new Error(`the headless host died (exit ${code}):\n${host.output.slice(-5).join('\n')}`);
    }),
  ]);
}

async function stillAnswers(): Promise<void> {
  expect(await whileAlive(askAppInfo(host.port, host.token))).toEqual({ ok: true, mode: 'headless' });
}

/** Sends one hand-built frame on an authorized connection and waits for the host to drop it. */
async function sendBadFrame(bytes: Buffer): Promise<string> {
  const peer = await rawWebSocket(host.port, host.token);
  peer.socket.write(bytes);
  await whileAlive(peer.closed);
  return peer.received().toString('latin1');
}

describe('the headless host survives hostile peers', () => {
  it('a refused upgrade is answered, and a reset right after it does not kill the host', async () => {
    for (let i = 0; i < 5; i++) {
      const peer = await rawConnect(host.port);
      peer.socket.write(upgradeRequest(host.port));
      expect(await whileAlive(peer.waitFor('\r\n\r\n'))).toMatch(/^HTTP\/1\.1 401/);
      peer.socket.resetAndDestroy();
      await whileAlive(peer.closed);
    }
    await stillAnswers();
  });

  it('an upgrade request reset before any answer does not kill the host', async () => {
    for (let i = 0; i < 5; i++) {
      const peer = await rawConnect(host.port);
      peer.socket.write(upgradeRequest(host.port), () => peer.socket.resetAndDestroy());
      await whileAlive(peer.closed);
    }
    await stillAnswers();
  });

  it('an accepted WebSocket reset by its peer does not kill the host', async () => {
    const peer = await rawWebSocket(host.port, host.token);
    peer.socket.resetAndDestroy();
    await whileAlive(peer.closed);
    await stillAnswers();
  });

  it('a frame over the size limit closes that connection only', async () => {
    const answer = await sendBadFrame(frame(Buffer.alloc(16), { claimedLength: 64 * 1024 * 1024 }));
    expect(answer).toContain('\x88'); // a close frame was sent back
    await stillAnswers();
  });

  it('a frame with RSV1 set (no compression was agreed) closes that connection only', async () => {
    await sendBadFrame(frame(Buffer.from('{"id":1}'), { rsv1: true }));
    await stillAnswers();
  });

  it('an unmasked client frame closes that connection only', async () => {
    await sendBadFrame(frame(Buffer.from('{"id":1}'), { masked: false }));
    await stillAnswers();
  });

  it('a text frame that is not valid UTF-8 closes that connection only', async () => {
    await sendBadFrame(frame(Buffer.from([0x7b, 0xc3, 0x28, 0xff, 0x7d])));
    await stillAnswers();
  });

  it('malformed HTTP is answered with 400 and does not kill the host', async () => {
    const peer = await rawConnect(host.port);
    peer.socket.write('GARBAGE\r\n\r\n');
    expect(await whileAlive(peer.waitFor('\r\n\r\n'))).toMatch(/^HTTP\/1\.1 400/);
    await whileAlive(peer.closed);
    await stillAnswers();
  });

  it('more UI connections than the cap are refused with 503, and a slot frees when one closes', async () => {
    const peers = [];
    for (let i = 0; i < 4; i++) peers.push(await rawWebSocket(host.port, host.token));
    const extra = await rawConnect(host.port);
    extra.socket.write(upgradeRequest(host.port, { Authorization: `Bearer ${host.token}` }));
    expect(await whileAlive(extra.waitFor('\r\n\r\n'))).toMatch(/^HTTP\/1\.1 503/);
    await extra.closed;
    const first = peers.shift()!;
    first.socket.destroy();
    await first.closed;
    await stillAnswers();
    for (const peer of peers) peer.socket.destroy();
    await Promise.all(peers.map((p) => p.closed));
  });

  it('a flood of commands on one connection closes it (policy violation) and the host goes on', async () => {
    const peer = await rawWebSocket(host.port, host.token);
    const burst = Buffer.concat(Array.from({ length: 2000 }, (_, i) => frame(Buffer.from(JSON.stringify({ id: i + 1, command: 'app:info', input: {} })))));
    peer.socket.write(burst);
    // A close frame (0x88) with status 1008, policy violation (0x03 0xf0), then the reason.
    await whileAlive(peer.waitFor(Buffer.concat([Buffer.from([0x03, 0xf0]), Buffer.from('too many commands')])));
    peer.socket.destroy();
    await stillAnswers();
  });
});
