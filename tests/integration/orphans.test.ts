import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartToken } from '../../main/core/exec/process-start';
import { isRunning, snapshotProcesses } from '../../main/core/exec/process-tree';
import { gone, launchersOf } from '../helpers/processes';
import { startEmulator, type RunningEmulator } from '../../emulator';
import type { Harness } from './core-harness';
import { CRASH_EMULATOR_CONFIG, FAKE, pairedDataDir, startCrashHost } from './crash-host-harness';

let h: Harness | null = null;
let emu: RunningEmulator | null = null;
const pids: number[] = [];
const temps: string[] = [];
afterEach(async () => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await h?.close();
  await emu?.close();
  h = null;
  emu = null;
  temps.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** Resolves once `file` exists (it is written whole, once). */
function fileAppears(file: string, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const dir = path.dirname(file);
    const done = () => {
      if (!existsSync(file)) return;
      const text = readFileSync(file, 'utf8');
      if (!text) return;
      watcher.close();
      clearTimeout(timer);
      resolve(text);
    };
    const watcher = watch(dir, done);
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`${file} did not appear`));
    }, timeoutMs);
    done();
  });
}

async function paired(): Promise<Harness> {
  emu = await startEmulator({ config: CRASH_EMULATOR_CONFIG });
  return pairedDataDir(emu);
}

/** Runs a host in its own process over the harness's data dir until its runtime (and grandchild) run. */
async function crashHostRunning(
  harness: Harness,
  extra: string[],
): Promise<{ child: ChildProcess; unitId: string; launcher: number; runtime: number; grandchild: number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-pids-'));
  temps.push(dir);
  const pidsFile = path.join(dir, 'pids.json');
  const { child, running } = startCrashHost(harness, emu!, extra, { FAKE_PIDS_FILE: pidsFile });
  const unit = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:spawn-child' });
  const launcher = await running(unit.id);
  const { parent, grandchild } = JSON.parse(await fileAppears(pidsFile)) as { parent: number; grandchild: number };
  pids.push(launcher, parent, grandchild);
  return { child, unitId: unit.id, launcher, runtime: parent, grandchild };
}

/**
 * A wait for the restart's report that, when it times out, says what the control plane
 * holds for the unit and what the restarted host logged (CI once saw this time out under
 * full parallel load and nothing else to go on).
 */
async function explained<T>(wait: Promise<T>, unitId: string): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    const unit = emu?.admin.getUnit(unitId);
    const log = h ? await h.invoke<{ time: string; level: string; msg: string; data?: unknown }[]>('log:recent', { limit: 60 }).catch(() => []) : [];
    const lines = log.map((e) => `${e.time} ${e.level} ${e.msg} ${e.data ? JSON.stringify(e.data) : ''}`).join('\n');
    throw new Error(`${(error as Error).message}\nunit: ${JSON.stringify(unit ?? null)}\nhost log:\n${lines}`);
  }
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('no orphaned agents', () => {
  it('kill -9 of the host: the parent-death watch stops the runtime and its children without a restart', async () => {
    h = await paired();
    const run = await crashHostRunning(h, []);
    expect(await isRunning(run.runtime)).toBe(true);
    await kill9(run.child);
    expect(await gone([run.launcher, run.runtime, run.grandchild])).toEqual([]);

    // The restart still reports the unit, once.
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    await emu!.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === run.unitId, { timeoutMs: 10_000, since: 0 });
    expect(emu!.admin.listResults({ unit_id: run.unitId })).toMatchObject([{ status: 'failed', summary: 'runner restarted' }]);
  }, 60_000);

  it('kill -9 while the start call is under way: the runtime started beside it dies with the host, and the unit is reported once', async () => {
    h = await paired();
    // The start call is held: the runtime process begins beside it and waits for its prompt.
    emu!.admin.addFault({ route: '/api/runner/turn-executions/*/start', latency_ms: 60_000, remaining: 1 });
    const { child, lines } = startCrashHost(h, emu!);
    const unit = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:spawn-child' });
    const launcher = await new Promise<number>((resolve, reject) => {
      lines.on('line', (line) => {
        const m = /^(spawned|running) (\S+) (\d+)$/.exec(line);
        if (!m || m[2] !== unit.id) return;
        if (m[1] === 'spawned') resolve(Number(m[3]));
        else reject(new Error('the unit ran before its start was answered'));
      });
      child.once('exit', (code) => reject(new Error(`crash host exited early (${code})`)));
    });
    pids.push(launcher);
    const group = (await snapshotProcesses()).filter((p) => p.pgid === launcher && !p.zombie).map((p) => p.pid);
    expect(group.length).toBeGreaterThanOrEqual(2); // the launcher and the runtime waiting for its prompt
    pids.push(...group);
    await kill9(child);
    expect(await gone(group)).toEqual([]);

    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    await explained(
      emu!.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 40_000, since: 0 }),
      unit.id,
    );
    expect(emu!.admin.listResults({ unit_id: unit.id })).toMatchObject([{ status: 'failed', summary: 'runner restarted' }]);
  }, 60_000);

  it('kill -9 of the host: a runtime started through the warm launcher dies with it, and no spare launcher outlives it', async () => {
    h = await paired();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-pids-'));
    temps.push(dir);
    const pidsFile = path.join(dir, 'pids.json');
    const { child, lines } = startCrashHost(h, emu!, [], { FAKE_PIDS_FILE: pidsFile });
    // A first turn leaves one launcher started behind it.
    const first = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    await emu!.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === first.id, { timeoutMs: 20_000 });
    const spares = await launchersOf(child.pid!);
    expect(spares).toHaveLength(1);
    pids.push(...spares);

    const unit = emu!.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:spawn-child' });
    const launcher = await new Promise<number>((resolve, reject) => {
      lines.on('line', (line) => {
        const m = /^running (\S+) (\d+)$/.exec(line);
        if (m && m[1] === unit.id) resolve(Number(m[2]));
      });
      child.once('exit', (code) => reject(new Error(`crash host exited early (${code})`)));
    });
    expect(launcher).toBe(spares[0]);
    const { parent, grandchild } = JSON.parse(await fileAppears(pidsFile)) as { parent: number; grandchild: number };
    const next = (await launchersOf(child.pid!)).filter((pid) => pid !== launcher);
    expect(next).toHaveLength(1);
    pids.push(parent, grandchild, ...next);
    await kill9(child);
    expect(await gone([launcher, parent, grandchild, ...next])).toEqual([]);
  }, 60_000);

  it('without the watch, the restart stops the recorded process group that is still the same process, and no other', async () => {
    h = await paired();
    const run = await crashHostRunning(h, ['no-lifeline']);
    await kill9(run.child);
    // Nothing stopped them: they outlived their host.
    expect(await isRunning(run.runtime)).toBe(true);
    expect(await isRunning(run.grandchild)).toBe(true);
    const note = JSON.parse(
      readFileSync(path.join(h.dataDir, 'profiles', 'default', 'running', `${Buffer.from(run.unitId).toString('base64url')}.json`), 'utf8'),
    );
    expect(note).toMatchObject({ pid: run.launcher, processStart: await processStartToken(run.launcher) });

    // A second note whose pid now belongs to another process (same pid, another start time).
    const decoy = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore', detached: true });
    pids.push(decoy.pid!);
    const running = path.join(h.dataDir, 'profiles', 'default', 'running');
    mkdirSync(running, { recursive: true });
    writeFileSync(
      path.join(running, `${Buffer.from('decoy-unit').toString('base64url')}.json`),
      JSON.stringify({
        runnerId: note.runnerId,
        unit: { id: 'decoy-unit', kind: 'turn_execution' },
        attempt: 1,
        runtime: 'claude',
        startedAt: new Date().toISOString(),
        pid: decoy.pid,
        processStart: 'linux:1:1',
      }),
    );

    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    await explained(
      emu!.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === run.unitId, { timeoutMs: 40_000, since: 0 }),
      run.unitId,
    );
    expect(await gone([run.launcher, run.grandchild])).toEqual([]);
    expect(await isRunning(decoy.pid!)).toBe(true);
    expect(emu!.admin.listResults({ unit_id: run.unitId })).toHaveLength(1);
    // Its MCP config went with its turn folder.
    const turns = path.join(h.dataDir, 'turns');
    expect(existsSync(turns) ? readdirSync(turns).filter((n) => n.startsWith('turn-')) : []).toEqual([]);
  }, 60_000);
});
