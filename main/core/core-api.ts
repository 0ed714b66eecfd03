// What the composition root (bootstrap.ts) takes and gives: the options both shells and
// the tests pass, and the core they get back.
import type { ConnectorKind } from '../../shared/profiles';
import type { PlaneLane } from '../../shared/protocol';
import type { UpdateNotice } from '../../shared/updates';
import type { SettingKey, SettingsPatch } from '../../shared/settings';
import type { FetchLike } from './connectors/http-json';
import type { IsolationProbe } from './exec/isolation';
import type { Host } from './host';
import type { Clock, DesktopPort, LogFeed, Logger, PlatformInfo } from './base/ports';
import type { Interrupt, QuitMode, QuitOutcome } from './quit-policy';
import type { CapabilityDetector } from './runner/capabilities';
import type { CommandRunner } from './exec/process-runner';
import type { SystemProbe } from './runner/telemetry';
import type { LendingSources } from './lending/sources';
import type { OpenSecretStoreResult } from './secrets/open-secret-store';
import type { SechroomProfileConfig } from './planes/sechroom/sechroom-config';
import type { RunOneOutcome, RunnerSession } from './sessions/session';
import type { SessionRegistry } from './sessions/session-registry';
import type { PersistentSettingsStore, SettingsBackend } from './settings/settings-store';
import type { UnitExecutor } from './exec/executor-port';

export interface CoreOptions {
  mode: 'electron' | 'headless';
  appName: string;
  appVersion: string;
  dataDir: string;
  /** Electron's and Node's own versions; defaults to this process's. */
  platform?: PlatformInfo;
  clock?: Clock;
  random?: () => number;
  /** Electron passes electron-store; headless uses conf in the data directory. */
  settingsBackend?: SettingsBackend;
  /** Env and flag overrides of the headless host: applied, never saved. */
  overrides?: SettingsPatch;
  overrideSources?: Partial<Record<SettingKey, string>>;
  /** Opt-in to the owner-only file store where no keychain works. */
  allowFileSecretStore?: boolean;
  /** Tests inject these; production uses the real ones. */
  secretStore?: OpenSecretStoreResult;
  fetch?: FetchLike;
  commandRunner?: CommandRunner;
  systemProbe?: SystemProbe;
  runtimeBinaries?: { claude: string; codex: string };
  executor?: UnitExecutor;
  /** The desktop shell's powers (open a link, a folder); absent headless. */
  desktop?: DesktopPort;
  /** Extra env for runtime processes (tests point the CLIs at model stubs). */
  runtimeEnv?: Record<string, string>;
  /** Which sandbox turns run in; default: the strongest this machine has (probed). */
  isolationProbe?: IsolationProbe;
  workStrategy?: 'adaptive' | 'seed';
  /** false: claim only when asked (`work.runOne()`, the headless `--once`). Default true. */
  workAutoClaim?: boolean;
  /**
   * The profile `runner`, `work`, `settings` and the per-profile overrides are about
   * (headless `--profile`); created when missing. Default: `default`.
   */
  profile?: string;
  /**
   * Profiles to hold (the headless profiles file): each is created when missing, and its
   * per-profile settings apply as overrides, never saved (the main profile's flags win).
   */
  profiles?: readonly { id: string; name: string; connector: ConnectorKind; overrides: SettingsPatch }[];
  /** The main profile's connector (headless `--plane`): created so when missing, refused when it is another kind. */
  profileConnector?: ConnectorKind;
  /** Sechroom profiles' settings from the command line or a fleet import, by profile id (created when missing). */
  sechroomProfiles?: Record<string, SechroomProfileConfig>;
  /** The environment SECHROOM_TOKEN and CODEX_BIN are read from (default: this process's). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The Electron binary may run as Node (ELECTRON_RUN_AS_NODE): true in development, false
   * in the packaged app, whose RunAsNode fuse is off. False: scripts run with a `node` on
   * PATH, or not at all (script-node.ts). Absent: plain Node, or a development Electron.
   */
  electronRunAsNode?: boolean;
  /** Start runtimes through the parent-death watch (default true where supported; tests of the restart path turn it off). */
  parentDeathWatch?: boolean;
  /** Write rotating log files (default true). */
  logFiles?: boolean;
  /** What the shell reads of the machine for the lending terms (absent: the headless sources). */
  lendingSources?: Partial<LendingSources>;
  /** The shell's own secrets the diagnostics bundle must drop by value (the headless window token). */
  diagnosticsSecrets?: () => readonly string[];
}

export interface Core {
  host: Host;
  log: Logger;
  /** Recent log entries, already redacted (the headless terminal prints a Sechroom executor's as the seed's `[run]` lines). */
  logFeed: LogFeed;
  /** The main profile's effective settings (its own over the host's); `profiles.settingsOf(id)` for any. */
  settings: PersistentSettingsStore;
  /** The main profile's session (`options.profile`, else `default`). */
  runner: RunnerSession;
  /** `--once` runs one unit of the main profile. */
  /** `lanes` [v1]: `--dry-run`, the lanes the main profile's plane would hand it (null: it lists none). */
  work: { runOne(): Promise<RunOneOutcome>; lanes(): Promise<readonly PlaneLane[] | null> };
  /** Every profile's session. */
  profiles: SessionRegistry;
  /** The runtime detection the runner and the work side share (`await capabilities.get()` waits for the first). */
  capabilities: CapabilityDetector;
  /**
   * The quit policy (shells call this, never shutdown): `after-turns` waits up to the
   * quitDrainMs setting for running turns, `now` cancels them; resolves once stopped.
   */
  quit(mode: QuitMode): Promise<QuitOutcome>;
  /** Called once when a quit begins, from any source (a command from the window, a signal, the tray). */
  onQuit(listener: (mode: QuitMode) => void): () => void;
  /** A Ctrl-C: drains, or stops now when it follows another within 3 s (QuitPolicy.interrupt). */
  interrupt(): Interrupt;
  /** The longest a quit may take before its turns are canceled (the effective quitDrainMs). */
  quitDrainMs(): number;
  /** A shell's update check found a newer version: app:info carries it, and the window is told (app:update). */
  announceUpdate(notice: UpdateNotice): void;
  /** The diagnostics bundle (a redacted zip) and the file name it is offered under. */
  diagnostics(): Promise<{ fileName: string; zip: Uint8Array }>;
  /** The last step of a quit (and a test's tear-down): drain for up to `limitMs`, then stop everything. */
  shutdown(limitMs?: number): Promise<void>;
}
