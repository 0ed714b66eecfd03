import { RUNTIME_NAMES, type RuntimeId } from '../../../shared/runtimes';
import type { IsolationLevel } from '../../../shared/isolation';
import type { Clock } from '../ports';
import type { CommandRunner } from './process-runner';

export type RuntimeName = RuntimeId;
export type RuntimePreference = 'auto' | RuntimeName;

export interface RuntimeCapability {
  installed: boolean;
  version?: string | undefined;
  path?: string | undefined;
  /** How this runtime's turns are isolated on this machine (see work/exec/isolation). */
  isolation?: IsolationLevel | undefined;
  /** Why no stronger isolation is available, when it is not. */
  isolationNote?: string | undefined;
}

export type IsolationSource = () => Promise<{ level: IsolationLevel; note: string | null }>;
export type Capabilities = Record<RuntimeName, RuntimeCapability>;

const REFRESH_MS = 10 * 60_000;
const VERSION_TIMEOUT_MS = 5_000;

/** `2.1.197 (Claude Code)`, `codex-cli 0.171.0` → the first dotted version. */
export function parseVersion(output: string): string | undefined {
  return /\b(\d+\.\d+\.\d+(?:[-+][\w.]+)?)\b/.exec(output)?.[1];
}

/**
 * Finds the locally installed coding agents. Detection spawns a process, so it runs at
 * start, then at most every 10 minutes or when asked, never on every heartbeat.
 */
export class CapabilityDetector {
  private cached: Capabilities | null = null;
  private detectedAt = -Infinity;
  private inflight: Promise<Capabilities> | null = null;

  constructor(
    private readonly runner: CommandRunner,
    private readonly clock: Clock,
    private readonly binaries: Record<RuntimeName, string> = { claude: RUNTIME_NAMES.claude.binary, codex: RUNTIME_NAMES.codex.binary },
    private readonly isolation?: IsolationSource,
  ) {}

  /** The last detection, refreshed if it is older than the refresh period. */
  get(): Promise<Capabilities> {
    if (this.cached && this.clock.now() - this.detectedAt < REFRESH_MS) return Promise.resolve(this.cached);
    return this.refresh();
  }

  peek(): Capabilities | null {
    return this.cached;
  }

  refresh(): Promise<Capabilities> {
    this.inflight ??= this.detect().finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async detect(): Promise<Capabilities> {
    const [claude, codex, isolation] = await Promise.all([
      this.detectOne(this.binaries.claude),
      this.detectOne(this.binaries.codex),
      this.isolation ? this.isolation().catch(() => null) : Promise.resolve(null),
    ]);
    const withIsolation = (c: RuntimeCapability): RuntimeCapability =>
      isolation && c.installed ? { ...c, isolation: isolation.level, ...(isolation.note ? { isolationNote: isolation.note } : {}) } : c;
    this.cached = { claude: withIsolation(claude), codex: withIsolation(codex) };
    this.detectedAt = this.clock.now();
    return this.cached;
  }

  private async detectOne(binary: string): Promise<RuntimeCapability> {
    const found = binary.includes('/') || binary.includes('\\') ? binary : await this.runner.which(binary);
    if (!found) return { installed: false };
    const result = await this.runner.run(found, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS });
    if (result.code !== 0) return { installed: false, path: found };
    const version = parseVersion(result.stdout) ?? parseVersion(result.stderr);
    return { installed: true, path: found, ...(version ? { version } : {}) };
  }
}

/** What the heartbeat advertises: only the runtimes the operator allowed [seed]. */
export function capabilitiesForRuntime(detected: Capabilities, preference: RuntimePreference): Capabilities {
  if (preference === 'auto') return detected;
  const other: RuntimeName = preference === 'claude' ? 'codex' : 'claude';
  return { ...detected, [other]: { installed: false } };
}

/** The seed's words for a unit this runner cannot run (a server that ignored `runtimes` sent it). [seed] */
export function cannotRunMessage(localRuntime: string, brain: string): string {
  return `Runner runtime ${localRuntime} cannot execute requested ${brain} turn.`;
}

/**
 * The runtime a unit runs with: its brain when that runtime is ready, else (for `auto`) the
 * first ready one. `ready` comes from `runtimeReadiness`, the one place that decides it.
 */
export function chooseRuntime(
  brain: 'claude' | 'codex' | 'auto',
  preference: RuntimePreference,
  ready: readonly RuntimeName[],
): { ok: true; runtime: RuntimeName } | { ok: false; reason: string } {
  if (brain !== 'auto') {
    if (ready.includes(brain)) return { ok: true, runtime: brain };
    return { ok: false, reason: cannotRunMessage(ready[0] ?? preference, brain) };
  }
  const first = ready[0];
  if (first) return { ok: true, runtime: first };
  return { ok: false, reason: 'No coding agent is available: install claude or codex, or change the runtime setting.' };
}
