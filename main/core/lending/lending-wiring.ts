// The host's lending gate put together for the composition root: the shell's sources where
// it gives them (Electron's powerMonitor), the headless ones otherwise.
import path from 'node:path';
import type { Clock, Logger } from '../base/ports';
import type { CommandRunner } from '../exec/process-runner';
import { headlessPowerSource, loginctlIdleSource } from './headless-sources';
import { LendingGate } from './lending-gate';
import type { LendingTerms } from './lending-terms';
import { nodeCpuSource, statfsDiskSource, type LendingSources } from './sources';

export interface LendingWiringOptions {
  clock: Clock;
  log: Logger;
  terms(): LendingTerms;
  dataDir: string;
  commandRunner: CommandRunner;
  env: Readonly<Record<string, string | undefined>>;
  /** What the shell reads itself (Electron: idle time and battery from powerMonitor). */
  sources?: Partial<LendingSources> | undefined;
}

/** The gate over the data folder and the turns folder, reading the given sources and the headless ones for the rest. */
export function createLendingGate(options: LendingWiringOptions): LendingGate {
  const { clock, commandRunner, env } = options;
  const sources: LendingSources = {
    idle: options.sources?.idle ?? loginctlIdleSource(commandRunner, env, () => clock.now()),
    power: options.sources?.power ?? headlessPowerSource(commandRunner),
    cpu: options.sources?.cpu ?? nodeCpuSource(),
    disk: options.sources?.disk ?? statfsDiskSource,
  };
  const folders = [options.dataDir, path.join(options.dataDir, 'turns')];
  return new LendingGate({ clock, log: options.log, terms: options.terms, sources, folders: () => folders });
}
