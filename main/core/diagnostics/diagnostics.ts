// The diagnostics bundle: what the host knows about itself (versions, settings, profiles,
// runtimes and their readiness, isolation, storage, the newest logs), as a redacted zip.
import { errorText } from '../../../shared/errors';
import type { Settings } from '../../../shared/settings';
import type { Clock, PlatformInfo } from '../base/ports';
import type { CapabilityDetector, TrippedRuntimes } from '../runner/capabilities';
import { runtimeReadiness } from '../runner/runtime-readiness';
import type { SessionRegistry } from '../sessions/session-registry';
import { probeFolder, storageErrorCode } from '../sessions/storage-health';
import type { DiagnosticsFile } from './diagnostics-zip';
import { logTail } from './log-tail';

export interface DiagnosticsDeps {
  app: { name: string; version: string; mode: 'electron' | 'headless' };
  platform: PlatformInfo;
  dataDir: string;
  logDir: string;
  clock: Clock;
  hostSettings(): Settings;
  profiles: SessionRegistry;
  capabilities: CapabilityDetector;
  tripped(): TrippedRuntimes;
  /** Every secret value to drop by value (secret-values.ts). */
  secrets(): Promise<string[]>;
  logBudgetBytes?: number;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The bundle's zip and the file name it is offered under. */
export async function buildDiagnostics(deps: DiagnosticsDeps): Promise<{ fileName: string; zip: Uint8Array }> {
  const at = new Date(deps.clock.now());
  const files = [...(await describeHost(deps)), ...(await logFiles(deps))];
  // The zip writer (fflate) is loaded when a bundle is asked for, not with every host.
  const { diagnosticsFileName, zipDiagnostics } = await import('./diagnostics-zip');
  return { fileName: diagnosticsFileName(at), zip: zipDiagnostics(files, await deps.secrets(), at) };
}

async function describeHost(deps: DiagnosticsDeps): Promise<DiagnosticsFile[]> {
  const capabilities = await deps.capabilities.get().catch(() => deps.capabilities.peek());
  const sessions = deps.profiles.sessions();
  const versions = {
    app: deps.app,
    node: deps.platform.versions.node,
    electron: deps.platform.versions.electron,
    chrome: deps.platform.versions.chrome,
    os: { platform: deps.platform.platform, arch: deps.platform.arch, release: deps.platform.release },
    claude: capabilities?.claude.version ?? null,
    codex: capabilities?.codex.version ?? null,
  };
  const settings = {
    host: deps.hostSettings(),
    profiles: Object.fromEntries(sessions.map((s) => [s.profile.id, deps.profiles.settingsOf(s.profile.id).get()])),
  };
  const profiles = sessions.map((s) => ({
    id: s.profile.id,
    name: s.profile.name,
    plane: s.profile.connector,
    paired: s.identity !== null,
    runnerId: s.identity?.runnerId ?? null,
    status: s.status(),
    secretStorage: s.snapshot().secretStorage,
  }));
  const runtimes = {
    detected: capabilities,
    readiness: Object.fromEntries(
      sessions.map((s) => [
        s.profile.id,
        runtimeReadiness({ capabilities, preference: deps.profiles.settingsOf(s.profile.id).get().runtime, tripped: deps.tripped() }),
      ]),
    ),
  };
  const isolation = Object.fromEntries(
    (['claude', 'codex'] as const).map((name) => [name, { level: capabilities?.[name].isolation ?? null, note: capabilities?.[name].isolationNote ?? null }]),
  );
  return [
    { name: 'versions.json', about: 'the app, Node, Electron, the OS, and the claude and codex versions detected', text: json(versions) },
    { name: 'settings.json', about: "the host-wide settings and each profile's effective settings", text: json(settings) },
    { name: 'profiles.json', about: 'each profile: id, plane, paired or not, status, where its secret is kept (never the secret)', text: json(profiles) },
    { name: 'runtimes.json', about: 'the runtimes detected (installed, signed in, path) and which may take work per profile', text: json(runtimes) },
    { name: 'isolation.json', about: 'how turns of each runtime are isolated on this machine, and why not more', text: json(isolation) },
    { name: 'storage.json', about: "whether the data folder takes a write now, and each profile's status line", text: json(await storage(deps)) },
  ];
}

async function storage(deps: DiagnosticsDeps): Promise<unknown> {
  const dataDir = await probeFolder(deps.dataDir).then(
    () => ({ path: deps.dataDir, writable: true }),
    (error: unknown) => ({ path: deps.dataDir, writable: false, code: storageErrorCode(error), message: errorText(error) }),
  );
  return { dataDir, profiles: deps.profiles.sessions().map((s) => ({ id: s.profile.id, state: s.status().state, reason: s.status().reason })) };
}

async function logFiles(deps: DiagnosticsDeps): Promise<DiagnosticsFile[]> {
  const tail = await logTail(deps.logDir, 'runner-tray', deps.logBudgetBytes);
  return tail.map((f) => ({ name: `logs/${f.name}`, about: 'the newest lines of the JSON log (one object per line)', text: f.text }));
}
