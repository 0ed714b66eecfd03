import { runtimeReady, type RuntimeCapability } from '../../runner/capabilities';
import type { LendingPort } from '../../lending/lending-gate';
import type { AdmissionPort } from './turn-runner';

/**
 * Admission that first asks whether the machine's codex can take a task (installed, not
 * known to be signed out), as a Rost profile claims nothing while no runtime is ready: a
 * task claimed by a codex that is not signed in would only fail, lease after lease. Then
 * the usage account's admission, when there is one.
 */
export function runtimeAdmission(codex: () => Promise<RuntimeCapability>, inner?: AdmissionPort): AdmissionPort {
  return {
    async check() {
      const readiness = runtimeReady('codex', await codex());
      if (!readiness.ready) return { ok: false, reason: `${readiness.reason}.`, retryAt: null };
      return inner ? inner.check() : { ok: true };
    },
  };
}

/**
 * Admission that first asks the host's lending terms (outside the lending hours, in use, on
 * battery, a busy CPU, a full disk: no new task), then `inner`. A held check asks again
 * when the first hold says it lets go, else on the loop's poll.
 */
export function lendingAdmission(lending: Pick<LendingPort, 'holds'>, inner?: AdmissionPort): AdmissionPort {
  return {
    async check() {
      const [first] = lending.holds();
      if (first) return { ok: false, reason: first.reason, retryAt: first.resumesAt };
      return inner ? inner.check() : { ok: true };
    },
  };
}
