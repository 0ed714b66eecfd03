import type { RuntimeId } from '../../../shared/runtimes';
import path from 'node:path';
import { DEFAULT_MODEL_ACCOUNT_STATE, parseAlertPercents, type Settings } from '../../../shared/settings';
import { accountTitle, admissionText, wallClock } from '../../../shared/usage-text';
import type { HostEvent } from '../../../shared/contract';
import type { RateLimitReading } from '../../../shared/usage';
import type { Clock, Logger } from '../base/ports';
import { chooseRuntime, type CapabilityDetector } from '../runner/capabilities';
import { readyRuntimes } from '../runner/runtime-readiness';
import { admittedCapabilities, type ClaimAdmission } from '../work/claim-admission';
import type { UnitExecutor } from '../exec/executor-port';
import { MeteredExecutor } from './metered-executor';
import { UsageBook } from './usage-book';
import { UsageLog } from './usage-log';
import { UsageService } from './usage-service';
import { spendingCaps } from './spending-caps';

/**
 * The usage accounts put together for the composition root: the book and log in the data
 * folder, the service with its probe, the executor that meters turns, the claim admission
 * for the work manager, and the heartbeat's account state.
 */
export interface UsageWiringOptions {
  dataDir: string;
  clock: Clock;
  log: Logger;
  settings(): Settings;
  /** Whether the account state setting comes from an env variable (always an override). */
  stateOverridden(): boolean;
  capabilities: CapabilityDetector;
  executor: UnitExecutor;
  /** codex's own answer about its windows (the app-server's account/rateLimits/read). */
  probeCodex?(): Promise<RateLimitReading | null>;
  emit(event: HostEvent): void;
}

/** What admission looks at of a profile: its runtime preference and its model account alias. */
export type AdmissionSettings = Pick<Settings, 'runtime' | 'modelAccountAlias'>;
type AccountStateSettings = AdmissionSettings & Pick<Settings, 'modelAccountState'>;

export interface UsageWiring {
  service: UsageService;
  /** The executor that meters a profile's turns into the account of its alias (one account per alias, shared by the profiles that use it). */
  executorFor(alias: () => string): UnitExecutor;
  /** A profile's claim admission: the accounts of its own alias, for the runtimes it claims with. */
  admissionFor(settings: () => AdmissionSettings): ClaimAdmission;
  /** The main profile's heartbeat model account state: the setting when it (or its env variable) overrides, else the measured one. */
  accountState(): string;
  /** Another profile's: its own setting when set, else its own alias's measured state. */
  accountStateFor(settings: () => AccountStateSettings): () => string;
  /** Why a profile's claims wait, for its status line, or null when they do not. */
  claimsDeferredFor(settings: () => AdmissionSettings): () => string | null;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The usage book, log and service in the data folder, reporting its changes and notices as host events. */
function createUsageService(options: UsageWiringOptions) {
  const dir = path.join(options.dataDir, 'usage');
  const log = options.log.child('usage');
  const book = new UsageBook(path.join(dir, 'accounts.json'));
  const usageLog = new UsageLog({ dir, log, now: () => options.clock.now() });
  const service = new UsageService({
    clock: options.clock,
    log,
    book,
    usageLog,
    alias: () => options.settings().modelAccountAlias,
    reservePercent: () => options.settings().usageReservePercent,
    alertThresholds: () => parseAlertPercents(options.settings().usageAlertPercents),
    caps: () => spendingCaps(options.settings()),
    probe: async (runtime) => (runtime === 'codex' && options.probeCodex ? options.probeCodex() : null),
    onNotice: (notice) => options.emit({ event: 'usage:notice', payload: notice }),
  });
  service.onChange(() => options.emit({ event: 'usage:update', payload: service.snapshot() }));
  return { log, book, usageLog, service };
}

/** Which runtimes a profile claims with, which of them its accounts admit, and the one a unit would run with now. */
function runtimeChoice(capabilities: CapabilityDetector, service: UsageService) {
  /** The runtimes a profile may run units with (its preference, or every installed one with `auto`). */
  const claimRuntimes = (s: AdmissionSettings): RuntimeId[] => {
    if (s.runtime !== 'auto') return [s.runtime];
    return readyRuntimes({ capabilities: capabilities.peek(), preference: s.runtime });
  };
  const admits = (s: AdmissionSettings) => (runtime: RuntimeId) => service.admits(runtime, { alias: s.modelAccountAlias });
  /** The runtime a unit without a brain of its own would run with now (an admitted one first). */
  const claimRuntime = (s: AdmissionSettings): RuntimeId | null => {
    const preference = s.runtime;
    const peeked = capabilities.peek();
    if (!peeked) return preference === 'auto' ? null : preference;
    const choosable = preference === 'auto' ? admittedCapabilities(peeked, admits(s)) : peeked;
    const choice = chooseRuntime('auto', preference, readyRuntimes({ capabilities: choosable, preference }));
    return choice.ok ? choice.runtime : null;
  };
  return { claimRuntimes, admits, claimRuntime };
}

/** The status line of a profile whose claims wait on `runtime`'s account. */
function deferredText(service: UsageService, runtime: RuntimeId, alias: string, now: number): string {
  const admission = service.admission(runtime, { alias });
  const title = accountTitle({ runtime, alias });
  if (admission.state === 'deferred' && admission.reason.startsWith('usage limit reached')) {
    const when = admission.resumesAt !== null ? `resumes at ${wallClock(admission.resumesAt)}` : 're-checked every 15 min';
    return `Not claiming: ${title} reached its usage limit; ${when}.`;
  }
  if (admission.state === 'deferred' && admission.cause === 'cap') return `Not claiming: ${title}: ${admission.reason}.`;
  return `Not claiming: ${title} ${admissionText(admission, now).replace(/^deferred: /, 'has ')}.`;
}

export function createUsage(options: UsageWiringOptions): UsageWiring {
  const { log, book, usageLog, service } = createUsageService(options);
  const { claimRuntimes, admits, claimRuntime } = runtimeChoice(options.capabilities, service);

  /** The heartbeat's model account state: the setting when it overrides, else the measured one of the profile's alias. */
  const accountState = (s: AccountStateSettings, overridden: boolean): string => {
    const stored = s.modelAccountState;
    if (overridden || stored !== DEFAULT_MODEL_ACCOUNT_STATE) return stored;
    const runtime = claimRuntime(s);
    if (!runtime) return stored;
    const alias = s.modelAccountAlias;
    const state = service.heartbeatState(runtime, alias);
    // With `auto`, a deferred other runtime is worth saying too (the state is ≤ 80 characters).
    const other = claimRuntimes(s).find((r) => r !== runtime && !admits(s)(r));
    return other ? `${state}; ${other} ${service.heartbeatState(other, alias)}`.slice(0, 80) : state;
  };

  return {
    service,
    executorFor: (alias) => new MeteredExecutor(options.executor, service, alias),
    admissionFor: (settings) => ({
      // Claim while a runtime a unit could use is admitted: with `auto`, units without a brain
      // of their own go to the admitted one (a unit that needs the deferred one is reported).
      allowsClaim: () => {
        const s = settings();
        const runtimes = claimRuntimes(s);
        return runtimes.length === 0 || runtimes.some(admits(s));
      },
      admits: (runtime) => admits(settings())(runtime),
      onChange: (listener) => service.onChange(listener),
    }),
    accountState: () => accountState(options.settings(), options.stateOverridden()),
    accountStateFor: (settings) => () => accountState(settings(), false),
    claimsDeferredFor: (settings) => () => {
      const s = settings();
      const runtime = claimRuntime(s);
      if (runtime === null || admits(s)(runtime)) return null;
      return deferredText(service, runtime, s.modelAccountAlias, options.clock.now());
    },
    async start() {
      const loaded = await book.load();
      if (loaded.warning) log.warn(loaded.warning);
      void usageLog.load();
      service.start();
    },
    async stop() {
      service.stop();
      await book.flush();
      await usageLog.flush();
    },
  };
}
