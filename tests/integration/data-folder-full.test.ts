import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { gitOrigin, type GitOrigin } from './git-origin';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));

/**
 * The host's data folder is a real 2 MiB tmpfs in a mount namespace of its own: as root
 * `unshare -m`, else `unshare -rm` (an unprivileged user namespace). The test reaches into
 * that namespace with `nsenter` to fill, free and remount the folder.
 */
const AS_ROOT = process.getuid?.() === 0;
const UNSHARE = AS_ROOT ? ['-m', '--propagation', 'private'] : ['-rm', '--propagation', 'private'];
function unavailable(): string | null {
  if (process.platform !== 'linux') return 'a tmpfs in a mount namespace needs Linux';
  const probe = spawnSync(
    'unshare',
    [...UNSHARE, 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && umount "$d"; r=$?; rmdir "$d"; exit $r'],
    {
      encoding: 'utf8',
    },
  );
  if (probe.error) return `unshare is not available (${probe.error.message})`;
  if (probe.status !== 0) return `cannot mount a tmpfs in a mount namespace here (${probe.stderr.trim() || `exit ${probe.status}`})`;
  if (spawnSync('nsenter', ['--version']).error) return 'nsenter is not available';
  return null;
}
const skipReason = unavailable();
if (skipReason) console.warn(`data-folder-full: skipped — ${skipReason}`);

let emu: RunningEmulator | null = null;
let repo: GitOrigin | null = null;
let dir = '';
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await emu?.close();
  repo?.cleanup();
  emu = repo = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

interface Host {
  child: ChildProcess;
  lines: string[];
  listening: Promise<boolean>;
}

/** The headless host with its data folder on a fresh 2 MiB tmpfs (bubblewrap stubbed out: a namespace in a namespace is not the point). */
function host(data: string, args: string[], env: Record<string, string> = {}): Host {
  const script = 'mount -t tmpfs -o size=2m,mode=0700 tmpfs "$0" && exec "$@"';
  const child = spawn('unshare', [...UNSHARE, 'sh', '-c', script, data, process.execPath, '--import', 'tsx', 'main/headless/cli.ts', '--port', '0', ...args], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      RUNNER_CONTROL_PLANE_URL: emu!.url,
      RUNNER_TRAY_DATA_DIR: data,
      RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1',
      RUNNER_TRAY_CLAUDE_BIN: FAKE,
      RUNNER_TRAY_CODEX_BIN: path.join(dir, 'no-codex-here'),
      RUNNER_HEARTBEAT_MS: '1000',
      // A 2 MiB folder is always under the default 2 GB lending floor: the storage probe is what is tested here.
      RUNNER_TRAY_DISK_MIN_FREE_GB: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  const listening = new Promise<boolean>((resolve) => {
    const feed = (line: string) => {
      lines.push(line);
      if (/^Runner Tray \S+ \(headless\) — open http/.test(line)) resolve(true);
    };
    createInterface({ input: child.stdout! }).on('line', feed);
    createInterface({ input: child.stderr! }).on('line', feed);
    child.once('exit', () => resolve(false));
  });
  return { child, lines, listening };
}

/** One command over the host's WebSocket with the token file's script token; its answer. */
function invoke(tokenFile: string, port: string, command: string, input: unknown): Promise<{ ok: boolean; error?: { code: string; message: string } }> {
  const token = /^RUNNER_TRAY_TOKEN=(.*)$/m.exec(readFileSync(tokenFile, 'utf8'))?.[1] ?? '';
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { authorization: `Bearer ${token}` } });
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, command, input })));
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string; id?: number; result?: { ok: boolean; error?: { code: string; message: string } } };
      if (frame.type !== 'result' || frame.id !== 1) return;
      ws.close();
      resolve(frame.result!);
    });
    ws.on('error', reject);
  });
}

/** A shell command in the host's mount namespace (where its tmpfs is). */
function inHostNamespace(pid: number, command: string, data: string): void {
  const run = spawnSync('nsenter', ['-t', String(pid), '-m', ...(AS_ROOT ? [] : ['-U', '--preserve-credentials']), 'sh', '-c', command, data], {
    encoding: 'utf8',
  });
  if (run.status !== 0 && !command.includes('|| true')) throw new Error(`nsenter ${command}: ${run.stderr}`);
}

/** A file of the host's data folder as the host sees it (its namespace's root). */
const hostPath = (pid: number, ...parts: string[]) => path.join(`/proc/${pid}/root`, ...parts);

const lineAfter = (h: Host, from: number, pattern: RegExp) => h.lines.slice(from).find((line) => pattern.test(line));

/** Every JSON file of a folder parses (none torn, none set aside as damaged); the names. */
function parsedFolder(folder: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  expect(names.filter((n) => n.endsWith('.damaged') || n.startsWith('.write-probe'))).toEqual([]);
  for (const name of names.filter((n) => n.endsWith('.json'))) JSON.parse(readFileSync(path.join(folder, name), 'utf8'));
  return names;
}

const WAIT = { timeout: 60_000, interval: 50 };

/** Waits for `check` to pass; on a timeout the error carries what the host printed last. */
async function until(h: Host, check: () => void): Promise<void> {
  try {
    await vi.waitFor(check, WAIT);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- the host printed (last 40 lines):\n${h.lines.slice(-40).join('\n')}`);
  }
}

/** The host is done with its units: no running note, no turn folder (their removal frees space too). */
function quiet(pid: number, data: string): void {
  expect(parsedFolder(hostPath(pid, data, 'profiles', 'default', 'running'))).toEqual([]);
  expect(parsedFolder(hostPath(pid, data, 'turns')).filter((n) => n.startsWith('turn-'))).toEqual([]);
}

const FILL = 'dd if=/dev/zero of="$0/fill" bs=64k 2>/dev/null; dd if=/dev/zero of="$0/fill2" bs=4k 2>/dev/null; true';

describe.skipIf(skipReason !== null)('a Rost runner whose data folder is full or read-only (a real tmpfs)', () => {
  it('claims nothing, says why in red, and takes the work once space returns and once it is writable again; nothing is lost', async () => {
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 1000 } });
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-full-'));
    mkdirSync(path.join(dir, 'bin'));
    writeFileSync(path.join(dir, 'bin', 'bwrap'), '#!/bin/sh\nexit 1\n');
    chmodSync(path.join(dir, 'bin', 'bwrap'), 0o755);
    const data = path.join(dir, 'data');
    mkdirSync(data);
    const runner = emu.admin.createRunner({ name: 'full-disk' });
    const seed = path.join(dir, 'rost-runner.json');
    writeFileSync(seed, JSON.stringify({ runner_id: runner.runner_id, runner_secret: runner.runner_secret, tenant_id: runner.tenant_id }), { mode: 0o600 });
    const claims = () => emu!.admin.listEvents({ type: 'unit.claimed' }).length;
    const beatsSince = (seq: number) => emu!.admin.listEvents({ type: 'runner.heartbeat', since: seq }).length;

    const tokenFile = path.join(dir, 'address.env');
    const h = host(data, ['--execute', '--state-file', seed, '--token-file', tokenFile]);
    // With a token file the address goes there, not to the terminal.
    await until(h, () => expect(readFileSync(tokenFile, 'utf8')).toMatch(/^RUNNER_TRAY_URL=/m));
    const pid = h.child.pid!;
    const port = /^RUNNER_TRAY_URL=http:\/\/127\.0\.0\.1:(\d+)/m.exec(readFileSync(tokenFile, 'utf8'))?.[1] ?? '';
    // One unit runs while the folder is fine.
    const first = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'first' });
    await until(h, () => expect(emu!.admin.getUnit(first.id)?.status).toBe('succeeded'));

    // Full: the next claim's probe fails; the status says so (the path and the error) and no claim is made.
    await until(h, () => quiet(pid, data));
    let mark = h.lines.length;
    inHostNamespace(pid, FILL, data);
    await until(h, () => expect(lineAfter(h, mark, /Status: Error — Cannot write to \S+: no space left on device \(ENOSPC\) — taking no work/)).toBeDefined());
    // Topped up: what the host freed since (a temp file) must not let a probe pass.
    inHostNamespace(pid, FILL.replaceAll('fill', 'topup'), data);
    const claimedBefore = claims();
    const full = [1, 2, 3].map((n) => emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: `while full ${n}` }));
    let seq = emu.admin.listEvents().at(-1)!.seq;
    await until(h, () => expect(beatsSince(seq)).toBeGreaterThanOrEqual(3));
    expect(claims()).toBe(claimedBefore);
    expect(full.map((u) => emu!.admin.getUnit(u.id)?.status)).toEqual(['queued', 'queued', 'queued']);

    // Space returns: the probe passes on its backoff, the status clears, the three units run.
    mark = h.lines.length;
    inHostNamespace(pid, 'rm -f "$0/fill" "$0/fill2" "$0/topup" "$0/topup2"', data);
    await until(h, () => expect(full.map((u) => emu!.admin.getUnit(u.id)?.status)).toEqual(['succeeded', 'succeeded', 'succeeded']));
    expect(lineAfter(h, mark, /Status: (Idle|Working).*/)).toBeDefined();

    // Read-only: the same, with EROFS, until it is writable again. The profiles' folder gets a read-only bind
    // mount over it (the tmpfs itself cannot be remounted read-only while the host keeps its logs open for writing).
    await until(h, () => quiet(pid, data));
    mark = h.lines.length;
    inHostNamespace(pid, 'mount --bind "$0/profiles" "$0/profiles" && mount -o remount,bind,ro "$0/profiles"', data);
    await until(h, () => expect(lineAfter(h, mark, /Status: Error — Cannot write to \S+: read-only file system \(EROFS\)/)).toBeDefined());
    const readOnly = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'while read-only' });
    seq = emu.admin.listEvents().at(-1)!.seq;
    const claimedReadOnly = claims();
    await until(h, () => expect(beatsSince(seq)).toBeGreaterThanOrEqual(3));
    expect(claims()).toBe(claimedReadOnly);
    expect(emu.admin.getUnit(readOnly.id)?.status).toBe('queued');
    // A pause (and a resume) that cannot be saved answers a failure that says so, not ok.
    const paused = await invoke(tokenFile, port, 'runner:pause', { profile: 'default', minutes: null });
    expect(paused).toMatchObject({ ok: false, error: { code: 'not_saved', message: expect.stringContaining('EROFS') } });
    expect(await invoke(tokenFile, port, 'runner:resume', { profile: 'default' })).toMatchObject({ ok: false, error: { code: 'not_saved' } });
    inHostNamespace(pid, 'umount "$0/profiles"', data);
    await until(h, () => expect(emu!.admin.getUnit(readOnly.id)?.status).toBe('succeeded'));

    // Nothing lost or torn: every result arrived once, the journal and the outbox are empty and parse, the history parses.
    const units = [first, ...full, readOnly];
    expect(units.map((u) => emu!.admin.listResults({ unit_id: u.id }).length)).toEqual([1, 1, 1, 1, 1]);
    const profile = hostPath(pid, data, 'profiles', 'default');
    await until(h, () => expect(parsedFolder(path.join(profile, 'running'))).toEqual([]));
    await until(h, () => expect(parsedFolder(path.join(profile, 'outbox'))).toEqual([]));
    parsedFolder(hostPath(pid, data, 'turns'));
    const history = readFileSync(hostPath(pid, data, 'turn-history.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    // Each line is the op and the row, tab-separated: every turn has its row, none torn.
    const rows = history.map((line) => line.split('\t').map((part) => JSON.parse(part) as { id?: string })[1]?.id);
    for (const u of units) expect(rows).toContain(u.id);

    const exited = new Promise<number | null>((resolve) => h.child.once('exit', (code) => resolve(code)));
    h.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 240_000);

  it('a Sechroom instance claims none of the ready tasks while the folder is full, says why, and runs them all once space returns', async () => {
    emu = await startEmulator({});
    repo = gitOrigin();
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-full-'));
    mkdirSync(path.join(dir, 'bin'));
    writeFileSync(path.join(dir, 'bin', 'bwrap'), '#!/bin/sh\nexit 1\n');
    chmodSync(path.join(dir, 'bin', 'bwrap'), 0o755);
    const data = path.join(dir, 'data');
    mkdirSync(data);
    const minted = emu.sechroom.mintToken();
    const args = ['--plane', 'sechroom', '--control-plane', emu.sechroomUrl, '--tenant', minted.tenant, '--instance-key', 'codex-a', '--root', repo.root];
    const h = host(data, [...args, '--poll-interval', '1', '--no-pr'], {
      SECHROOM_TOKEN: minted.access_token,
      CODEX_BIN: APP_SERVER_STUB,
      CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'closeout-on-nudge' }),
    });
    expect(await h.listening, h.lines.join('\n')).toBe(true);
    const pid = h.child.pid!;
    await until(h, () => expect(emu!.sechroom.listInstances().map((i) => i.status)).toEqual(['live']));
    const profile = hostPath(pid, data, 'profiles', 'codex-a');
    await until(h, () => expect(parsedFolder(path.join(profile, 'inflight'))).toEqual([]));

    const mark = h.lines.length;
    inHostNamespace(pid, FILL, data);
    await until(h, () => expect(lineAfter(h, mark, /Status: Error — Cannot write to \S+: no space left on device \(ENOSPC\) — taking no work/)).toBeDefined());
    inHostNamespace(pid, FILL.replaceAll('fill', 'topup'), data);
    const tasks = [1, 2, 3].map((n) => emu!.sechroom.createTask({ title: `Task ${n}`, objective: `Do ${n}.` } as never));
    // The tasks are offered to the instance, and its gates hold: not one lease while the folder is full.
    await until(h, () => expect(emu!.sechroom.listOffers({}).length).toBeGreaterThanOrEqual(3));
    expect(lineAfter(h, mark, /not claiming: Cannot write to/)).toBeDefined();
    expect(emu.sechroom.listLeases({})).toEqual([]);

    const freedAt = Date.now();
    inHostNamespace(pid, 'rm -f "$0/fill" "$0/fill2" "$0/topup" "$0/topup2"', data);
    await until(h, () => expect(tasks.map((t) => emu!.sechroom.listCompletions({ memory_id: t.memoryId }).length)).toEqual([1, 1, 1]));
    // One lease per task, each taken once the folder took writes again (none abandoned, none left to expire).
    const leases = emu.sechroom.listLeases({});
    expect(leases).toHaveLength(3);
    for (const lease of leases) expect(Date.parse(lease.createdAt)).toBeGreaterThanOrEqual(freedAt);
    expect(leases.map((l) => l.status)).toEqual(['completed', 'completed', 'completed']);
    await until(h, () => expect(parsedFolder(path.join(profile, 'inflight'))).toEqual([]));
    await until(h, () => expect(parsedFolder(path.join(profile, 'outbox'))).toEqual([]));

    const exited = new Promise<number | null>((resolve) => h.child.once('exit', (code) => resolve(code)));
    h.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 240_000);
});
