import type { Core } from '../core/bootstrap';
import type { SeedLines } from './seed-lines';

type Out = { write(text: string): unknown };

/**
 * `--once` as the seed defines it: pair if needed, one heartbeat, and when executing one
 * claim and run; exit 0 only if the heartbeat went through and nothing failed (a claim,
 * a refused start, a result that could not be delivered). A unit that ran and failed was
 * still reported, so it is not a failure of the run (as the seed).
 * The core must be booted with `workAutoClaim: false`, so only this claims.
 */
export async function runOnce(core: Core, lines: SeedLines, out: Out, options: { userCode?: string }): Promise<number> {
  if (!core.runner.identity) {
    const paired = await pairFirst(core, out, options.userCode);
    if (!paired) return 1;
  }
  const beat = await lines.nextBeat();
  if (!beat.ok) {
    out.write(`heartbeat failed: ${beat.reason}\n`);
    return 1;
  }
  if (!core.settings.get().runWork) return 0;
  const ran = await core.work.runOne();
  if (ran.error) {
    out.write(`${ran.error}\n`);
    return 1;
  }
  return 0;
}

/** Starts pairing and waits for it to end: true once this machine has an identity. */
async function pairFirst(core: Core, out: Out, userCode: string | undefined): Promise<boolean> {
  // The profile the host runs (`--profile x`), not the commands' default.
  const profile = core.runner.profile.id;
  const started = userCode
    ? await core.host.invoke('pairing:start-with-code', { code: userCode, profile })
    : await core.host.invoke('pairing:start', { profile });
  if (!started.ok) {
    out.write(`Cannot pair: ${started.error.message}\n`);
    return false;
  }
  return new Promise((resolve) => {
    let off: () => void = () => undefined;
    const done = (ok: boolean) => {
      off();
      resolve(ok);
    };
    const check = () => {
      const snapshot = core.runner.snapshot();
      if (snapshot.identity) return done(true);
      const phase = snapshot.pairing?.phase;
      if (phase === 'denied' || phase === 'expired' || phase === 'failed' || phase === 'canceled') return done(false);
    };
    off = core.host.subscribe(() => check());
    check();
  });
}
