// Sechroom pickup: a task offered to a waiting, live instance → the scripted codex
// app-server (tests/stubs) receiving the task's `turn/start`. Once with the held offers
// read [v1] (the default), once against a Work Layer that holds no read (it ignores
// `waitMs`): the client then polls every 5 s, as the seed does. The real core in
// process against the emulator's Work Layer; tasks arrive uniform over the poll period.
// Alone: `npx tsx tests/bench/sechroom-pickup.ts [--quick]`.
import { existsSync, mkdirSync, readFileSync, watch } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../emulator';
import { startHarness } from '../integration/core-harness';
import { gitOrigin } from '../integration/git-origin';
import { percentile } from './bench-runner';

const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));
const POLL_S = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const starts = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('"method":"turn/start"').length - 1 : 0);

/** Resolves at the moment the stub's log holds `count` `turn/start` requests. */
function turnStarts(log: string, count: number): Promise<number> {
  const seen = () => starts(log);
  return new Promise((resolve) => {
    const check = () => {
      if (seen() < count) return false;
      const at = performance.now();
      clearInterval(fallback);
      watcher.close();
      resolve(at);
      return true;
    };
    const watcher = watch(path.dirname(log), () => void check());
    // fs.watch may miss a change; a coarse check keeps the bench from hanging (it is not the measure).
    const fallback = setInterval(check, 250);
    check();
  });
}

/** Offer → turn/start latencies (ms) for one instance; `held` false: the server holds no offers read. */
export async function sechroomPickup(samples: number, held: boolean): Promise<number[]> {
  const git = gitOrigin();
  const emu = await startEmulator(held ? {} : { sechroom: { offerWaitMaxMs: 0 } });
  const minted = emu.sechroom.mintToken();
  // In the root: the app-server runs in the turn's sandbox, where only its working tree is writable.
  const log = path.join(git.root, '.bench', 'app-server.jsonl');
  mkdirSync(path.dirname(log), { recursive: true });
  const h = await startHarness({
    emu,
    core: {
      runtimeEnv: { STUB_LOG: log, CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'closeout-on-nudge' }) },
      env: { ...process.env, SECHROOM_TOKEN: minted.access_token },
    },
  });
  await h.invoke('profiles:add', { name: 'Work', connector: 'sechroom' });
  await h.invoke('sechroom:configure', {
    profile: 'work',
    baseUrl: emu.sechroomUrl,
    tenant: minted.tenant,
    instance: { instanceKey: 'bench-a', root: git.root, pollIntervalSeconds: POLL_S, codexBin: APP_SERVER_STUB },
    deliver: false,
    raisePr: false,
  });
  await h.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'work' && p.runnerId !== null), 30_000);
  console.error(`bench: Sechroom instance live (${held ? 'held read' : 'no held read'})`);
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    await sleep(Math.random() * POLL_S * 1000);
    // A task's turn may be nudged to close out (a second turn/start): count from what is there now.
    const started = turnStarts(log, starts(log) + 1);
    const offeredAt = performance.now();
    emu.sechroom.createTask({ title: `Bench ${i}`, objective: 'Close out.' });
    out.push((await started) - offeredAt);
    // The task settles (completion delivered) before the next offer: one instance, one task at a time.
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.plane === 'sechroom' && t.title === `Bench ${i}`), 30_000);
  }
  await h.close();
  await emu.close();
  git.cleanup();
  return out;
}

async function alone() {
  const quick = process.argv.includes('--quick');
  const held = await sechroomPickup(quick ? 10 : 30, true);
  const polled = await sechroomPickup(quick ? 5 : 10, false);
  const p50 = (xs: number[]) => percentile(xs, 50);
  console.log(
    `Sechroom offer → codex turn started p50: held read ${p50(held).toFixed(1)} ms, 5 s poll ${p50(polled).toFixed(0)} ms (n=${held.length}/${polled.length})`,
  );
  process.exit(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) void alone();
