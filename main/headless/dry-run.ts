// `--dry-run` [v1]: for each lane the Rost plane would hand this runner (`GET /api/runner/lanes`),
// whether this machine can run its work (the runtime allowed, installed, signed in and
// ready, an OS sandbox where the lane requires one), without claiming anything. Exit 0 when
// every lane is runnable, 1 when one is not (or the check could not be made).
import type { PlaneLane } from '../../shared/protocol';
import type { RunnerSnapshot } from '../../shared/runner';
import type { Runtime } from '../../shared/settings';
import { errorText } from '../../shared/errors';
import { redactText } from '../../shared/redact';
import type { Core } from '../core/bootstrap';

type Out = { write(text: string): unknown };
type Runtimes = NonNullable<RunnerSnapshot['runtimes']>;
const RUNTIMES = ['claude', 'codex'] as const;
const SANDBOXES = new Set(['bubblewrap', 'sandbox-exec']);

export interface LaneVerdict {
  runtime: string;
  queued: number;
  runnable: boolean;
  /** What decided it, one phrase. */
  why: string;
}

/** Why this machine cannot run `runtime`'s work, or null when it can. */
function blocker(runtime: (typeof RUNTIMES)[number], setting: Runtime, runtimes: Runtimes, sandbox: boolean): string | null {
  const info = runtimes[runtime];
  if (setting !== 'auto' && setting !== runtime) return `the runtime setting is ${setting}`;
  if (!info.installed) return `${runtime} is not installed`;
  if (info.signedIn === false) return `${runtime} is not signed in`;
  if (info.ready === false) return info.problem ?? `${runtime} is not ready`;
  if (sandbox && !SANDBOXES.has(info.isolation ?? '')) return `no OS sandbox for ${runtime} here (${info.isolation ?? 'unknown'})`;
  return null;
}

/** Each lane's verdict against this machine's runtimes (pure: the headless line and the tests use it). */
export function judgeLanes(lanes: readonly PlaneLane[], runtimes: Runtimes, setting: Runtime): LaneVerdict[] {
  return lanes.map((lane) => {
    const sandbox = lane.sandbox === 'required';
    const candidates = lane.runtime === 'auto' ? RUNTIMES : RUNTIMES.filter((r) => r === lane.runtime);
    if (candidates.length === 0) return { runtime: lane.runtime, queued: lane.queued, runnable: false, why: `this runner has no ${lane.runtime} runtime` };
    const blocked = candidates.map((r) => ({ r, why: blocker(r, setting, runtimes, sandbox) }));
    const ok = blocked.find((b) => b.why === null);
    if (ok) {
      const isolation = runtimes[ok.r].isolation ?? 'unknown isolation';
      return { runtime: lane.runtime, queued: lane.queued, runnable: true, why: `runs on ${ok.r} (${isolation})` };
    }
    return { runtime: lane.runtime, queued: lane.queued, runnable: false, why: blocked.map((b) => b.why).join('; ') };
  });
}

/** Waits for the first runtime detection (the snapshot has none before it). */
async function runtimesOf(core: Core): Promise<Runtimes> {
  await core.capabilities.get();
  const now = core.runner.snapshot().runtimes;
  if (now) return now;
  return new Promise((resolve) => {
    const off = core.host.subscribe(() => {
      const runtimes = core.runner.snapshot().runtimes;
      if (!runtimes) return;
      off();
      resolve(runtimes);
    });
  });
}

export async function runDryRun(core: Core, out: Out): Promise<number> {
  if (!core.runner.identity) {
    out.write('dry run: this runner is not paired; pair it first (run without --dry-run, or with --user-code)\n');
    return 1;
  }
  let lanes: readonly PlaneLane[] | null;
  try {
    lanes = await core.work.lanes();
  } catch (error) {
    out.write(`dry run: the control plane did not list lanes: ${redactText(errorText(error))}\n`);
    return 1;
  }
  const runtimes = await runtimesOf(core);
  const setting = core.settings.get().runtime;
  // A plane that lists no lanes: judge the runtimes it could hand out by name.
  const judged = judgeLanes(lanes ?? RUNTIMES.map((runtime) => ({ runtime, queued: 0 })), runtimes, setting);
  if (lanes === null) out.write('dry run: the control plane lists no lanes; checking each runtime instead\n');
  if (judged.length === 0) out.write('dry run: no work is offered to this runner now\n');
  for (const v of judged) {
    const queued = lanes === null ? '' : ` (${v.queued} queued)`;
    out.write(`dry run: lane ${v.runtime}${queued}: ${v.runnable ? 'runnable' : 'NOT runnable'} — ${v.why}\n`);
  }
  const failing = judged.filter((v) => !v.runnable).length;
  out.write(
    failing === 0 ? 'dry run: every lane is runnable here; nothing was claimed\n' : `dry run: ${failing} lane(s) not runnable here; nothing was claimed\n`,
  );
  return failing === 0 ? 0 : 1;
}
