import { importRunnerState } from './import';
import type { SecretStore } from '../../secrets/secret-store';
import type { RunnerIdentity, RunnerStateStore } from '../../runner/runner-state-store';

/** `transient`: it failed for a reason a later try may not meet (the secret store did not answer). */
export type StateImportResult = { ok: true; identity: RunnerIdentity; notes: string[] } | { ok: false; reason: string; transient?: boolean };

/**
 * Carries a `rost runner serve` state file over: identity and resume sessions into our
 * state, the secret into the secret store (read back before the old file loses it).
 */
export async function importStateFile(options: {
  file: string;
  secrets: SecretStore;
  account: (controlPlaneUrl: string) => string;
  controlPlaneUrl: string;
  expectedTenantId: string | null;
  runnerName: string;
  state: RunnerStateStore;
  now: number;
}): Promise<StateImportResult> {
  const result = await importRunnerState({
    file: options.file,
    secretStore: options.secrets,
    account: options.account(options.controlPlaneUrl),
    controlPlaneUrl: options.controlPlaneUrl,
    ...(options.expectedTenantId ? { expectedTenantId: options.expectedTenantId } : {}),
  });
  if (!result.ok) return { ok: false, reason: `Import failed at ${result.step}: ${result.reason}`, ...(result.transient ? { transient: true } : {}) };
  const imported = result.imported;
  const identity: RunnerIdentity = {
    runnerId: imported.runnerId,
    tenantId: imported.tenantId ?? null,
    name: imported.name ?? options.runnerName,
    controlPlaneUrl: options.controlPlaneUrl,
    pairedAt: new Date(options.now).toISOString(),
  };
  await options.state.update((s) => ({
    ...s,
    identity,
    runtimeSessions: { ...s.runtimeSessions, ...imported.runtimeSessions },
  }));
  return { ok: true, identity, notes: imported.notes };
}
