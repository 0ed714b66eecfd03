import { RUNTIME_NAMES, runtimeLabel, type RuntimeId } from '../../../shared/runtimes';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { IsolationLevel } from '../../../shared/isolation';
import type { Clock } from '../base/ports';
import type { CapabilitiesCache } from './capabilities-cache';
import type { CommandRunner } from '../exec/process-runner';

export type RuntimePreference = 'auto' | RuntimeId;

export interface RuntimeCapability {
  installed: boolean;
  version?: string | undefined;
  path?: string | undefined;
  /** What the CLI's own auth check said; absent when it could not tell (then a first auth failure decides). */
  signedIn?: boolean | undefined;
  /** Why an installed runtime cannot run turns, for the operator (amber in the window). */
  problem?: string | undefined;
  /** How this runtime's turns are isolated on this machine (see exec/isolation). */
  isolation?: IsolationLevel | undefined;
  /** Why no stronger isolation is available, when it is not. */
  isolationNote?: string | undefined;
}

export type IsolationSource = () => Promise<{ level: IsolationLevel; note: string | null }>;
export type Capabilities = Record<RuntimeId, RuntimeCapability>;

const REFRESH_MS = 10 * 60_000;
/** While a runtime is installed but signed out, look again this often: signing in is noticed soon. */
const SIGNED_OUT_REFRESH_MS = 60_000;
const VERSION_TIMEOUT_MS = 5_000;
const AUTH_TIMEOUT_MS = 10_000;
/** The longest a first detection can take: each runtime's `--version`, then its sign-in probe (the two run side by side). */
export const DETECTION_BOUND_MS = VERSION_TIMEOUT_MS + AUTH_TIMEOUT_MS;

const SIGN_IN: Readonly<Record<RuntimeId, string>> = {
  claude: 'installed, not signed in — run `claude` and sign in',
  codex: 'installed, not signed in — run `codex login`',
};

/** A turn's failure text that says the runtime has no usable credentials (claude's and codex's own words). */
export function isAuthFailure(text: string): boolean {
  return /not logged in|please run \/login|invalid api key|authentication_error|401 unauthorized|unauthorized: missing bearer|no api key/i.test(text);
}

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
  /** The last run's detection (from `cache`), answered until this run's first detection ends. */
  private remembered: Promise<Capabilities | null> | null = null;
  /** What this run's own detection waits for once the last run's was answered (see detectAtStart). */
  private refreshGate: Promise<unknown> = Promise.resolve();
  private detectedThisRun = false;
  /** Set when the host stops: nothing is probed or written after it. */
  private stopped = false;
  /** The last save of a detection (stop waits for it). */
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly runner: CommandRunner,
    private readonly clock: Clock,
    private readonly binaries: Record<RuntimeId, string> = { claude: RUNTIME_NAMES.claude.binary, codex: RUNTIME_NAMES.codex.binary },
    /** The env the runtimes run with (where their auth state lives: HOME, CODEX_HOME, API keys). */
    private readonly env: Record<string, string | undefined> = process.env,
    private readonly isolation?: IsolationSource | undefined,
    /** Where the last detection is kept between runs (see capabilities-cache.ts). */
    private readonly cache?: CapabilitiesCache | undefined,
  ) {}

  /** A turn failed for want of credentials: the runtime is not ready until the next check. */
  markNotSignedIn(runtime: RuntimeId, evidence: string): void {
    const current = this.cached?.[runtime];
    if (!this.cached || !current?.installed || current.signedIn === false) return;
    this.cached = { ...this.cached, [runtime]: { ...current, signedIn: false, problem: `${SIGN_IN[runtime]} (${evidence.slice(0, 120)})` } };
  }

  /** The last detection, refreshed if it is older than the refresh period. */
  get(): Promise<Capabilities> {
    if (!this.cached && this.cache) return this.fromLastRun();
    const signedOut = this.cached !== null && Object.values(this.cached).some((c) => c.installed && c.signedIn === false);
    if (this.cached && this.clock.now() - this.detectedAt < (signedOut ? SIGNED_OUT_REFRESH_MS : REFRESH_MS)) return Promise.resolve(this.cached);
    return this.refresh();
  }

  peek(): Capabilities | null {
    return this.cached;
  }

  refresh(): Promise<Capabilities> {
    this.inflight ??= this.detect().finally(() => (this.inflight = null));
    return this.inflight;
  }

  /** This run's detection: the one done or under way, else a new one. */
  freshen(): Promise<Capabilities> {
    return this.detectedThisRun && !this.inflight && this.cached ? Promise.resolve(this.cached) : this.refresh();
  }

  /**
   * The start's own detection. Where the last run's answers the start, it waits for `gate`
   * (the host's first heartbeat answered): its CLI and sandbox probes are process spawns,
   * each forking the host, and beside the beat they delayed it. Without one it runs at once.
   */
  async detectAtStart(gate: Promise<unknown>): Promise<Capabilities> {
    this.refreshGate = gate;
    if (this.cache && (await this.rememberedAnswer())) await gate;
    return this.freshen();
  }

  private rememberedAnswer(): Promise<Capabilities | null> {
    this.remembered ??= this.cache!.load(this.binaries).then((last) => {
      if (last && !this.cached) {
        this.cached = last;
        this.detectedAt = this.clock.now();
        void this.refreshGate.then(() => setImmediate(() => void this.freshen()));
      }
      return last;
    });
    return this.remembered;
  }

  private async fromLastRun(): Promise<Capabilities> {
    return (await this.rememberedAnswer()) ?? this.refresh();
  }

  /**
   * The host stops: no detection starts after this and none is saved (a detection under way
   * finishes its probes, but its answer is not written into a data folder being let go of);
   * a write already under way is waited for.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.saving;
  }

  private async detect(): Promise<Capabilities> {
    if (this.stopped) return this.cached ?? { claude: { installed: false }, codex: { installed: false } };
    const [claude, codex, isolation] = await Promise.all([
      this.detectOne('claude', this.binaries.claude),
      this.detectOne('codex', this.binaries.codex),
      this.isolation ? this.isolation().catch(() => null) : Promise.resolve(null),
    ]);
    const withIsolation = (c: RuntimeCapability): RuntimeCapability =>
      isolation && c.installed ? { ...c, isolation: isolation.level, ...(isolation.note ? { isolationNote: isolation.note } : {}) } : c;
    this.cached = { claude: withIsolation(claude), codex: withIsolation(codex) };
    this.detectedAt = this.clock.now();
    this.detectedThisRun = true;
    if (this.cache && !this.stopped) this.saving = this.cache.save(this.cached, this.binaries).catch(() => undefined);
    return this.cached;
  }

  private async detectOne(runtime: RuntimeId, binary: string): Promise<RuntimeCapability> {
    const found = binary.includes('/') || binary.includes('\\') ? binary : await this.runner.which(binary);
    if (!found) return { installed: false };
    const result = await this.runner.run(found, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS });
    if (result.code !== 0) return { installed: false, path: found };
    const version = parseVersion(result.stdout) ?? parseVersion(result.stderr);
    const signedIn = await this.signedIn(runtime, found);
    return {
      installed: true,
      path: found,
      ...(version ? { version } : {}),
      ...(signedIn !== undefined ? { signedIn } : {}),
      ...(signedIn === false ? { problem: SIGN_IN[runtime] } : {}),
    };
  }

  /**
   * The CLI's own word: `claude auth status` prints `{ "loggedIn": … }`; `codex login
   * status` exits 1 with "Not logged in". Only a clear "no" counts: anything else (an
   * older CLI, a stand-in) is left to the first auth failure.
   */
  private async signedIn(runtime: RuntimeId, binary: string): Promise<boolean | undefined> {
    if (runtime === 'claude') {
      const r = await this.runner.run(binary, ['auth', 'status'], { timeoutMs: AUTH_TIMEOUT_MS });
      try {
        const status = JSON.parse(r.stdout) as { loggedIn?: unknown };
        return typeof status.loggedIn === 'boolean' ? status.loggedIn : undefined;
      } catch {
        return undefined;
      }
    }
    const r = await this.runner.run(binary, ['login', 'status'], { timeoutMs: AUTH_TIMEOUT_MS });
    if (r.code === 0 && /logged in|api key configured/i.test(r.stdout + r.stderr)) return true;
    if (r.code !== 0 && /not logged in/i.test(r.stdout + r.stderr)) {
      // A configured provider of its own (an env_key, no OpenAI login) needs no sign-in.
      return (await this.codexCustomProvider()) ? undefined : false;
    }
    return undefined;
  }

  private async codexCustomProvider(): Promise<boolean> {
    const home = this.env.CODEX_HOME || (this.env.HOME ? path.join(this.env.HOME, '.codex') : null);
    if (!home) return false;
    try {
      const toml = await readFile(path.join(home, 'config.toml'), 'utf8');
      const provider = /^\s*model_provider\s*=\s*["']([^"']+)["']/m.exec(toml)?.[1];
      return provider !== undefined && provider !== 'openai';
    } catch {
      return false;
    }
  }
}

/** Runtimes paused by the circuit breaker, with the operator's reason. */
export type TrippedRuntimes = Partial<Record<RuntimeId, string>>;

export type Readiness = { ready: true } | { ready: false; reason: string };

/**
 * One runtime's readiness, the check under `runtimeReadiness` (runtime-readiness.ts): it may run (and be claimed for) only when it is
 * installed, not known to be signed out, and not paused by the circuit breaker.
 */
export function runtimeReady(runtime: RuntimeId, capability: RuntimeCapability | undefined, tripped: TrippedRuntimes = {}): Readiness {
  const name = runtimeLabel(runtime);
  if (!capability?.installed) return { ready: false, reason: `${name} is not installed on this machine` };
  if (capability.signedIn === false) return { ready: false, reason: `${name}: ${capability.problem ?? SIGN_IN[runtime]}` };
  const trip = tripped[runtime];
  if (trip) return { ready: false, reason: `${name}: ${trip}` };
  return { ready: true };
}

/** What the heartbeat advertises: only the runtimes the operator allowed [seed], and only ready ones as installed. */
export function capabilitiesForRuntime(detected: Capabilities, preference: RuntimePreference, tripped: TrippedRuntimes = {}): Capabilities {
  const out = {} as Capabilities;
  for (const runtime of ['claude', 'codex'] as const) {
    const allowed = preference === 'auto' || preference === runtime;
    const cap = detected[runtime];
    if (!allowed) out[runtime] = { installed: false };
    else {
      const { signedIn: _signedIn, problem: _problem, ...wire } = cap;
      out[runtime] = runtimeReady(runtime, cap, tripped).ready ? wire : { ...wire, installed: false };
    }
  }
  return out;
}

/** Why no allowed runtime can take work, or null when one can. */
export function noReadyRuntime(detected: Capabilities | null, preference: RuntimePreference, tripped: TrippedRuntimes = {}): string | null {
  if (!detected) return null;
  const allowed = (['claude', 'codex'] as const).filter((r) => preference === 'auto' || preference === r);
  const reasons: string[] = [];
  for (const runtime of allowed) {
    const r = runtimeReady(runtime, detected[runtime], tripped);
    if (r.ready) return null;
    if (detected[runtime].installed) reasons.push(r.reason);
  }
  if (reasons.length > 0) return reasons.join('; ');
  // None of the allowed runtimes is installed: nothing is claimed, and an idle that looks fine would hide why.
  const [first, second] = allowed.map(runtimeLabel);
  return second ? `neither ${first} nor ${second} is installed on this machine` : `${first} is not installed on this machine`;
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
  ready: readonly RuntimeId[],
): { ok: true; runtime: RuntimeId } | { ok: false; reason: string } {
  if (brain !== 'auto') {
    if (ready.includes(brain)) return { ok: true, runtime: brain };
    return { ok: false, reason: cannotRunMessage(ready[0] ?? preference, brain) };
  }
  const first = ready[0];
  if (first) return { ok: true, runtime: first };
  return { ok: false, reason: 'No coding agent is available: install claude or codex, or change the runtime setting.' };
}
