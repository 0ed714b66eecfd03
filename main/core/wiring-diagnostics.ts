// The diagnostics bundle over the host's parts (diagnostics/): what the window's button and
// `runner-tray-headless diagnostics` both write.
import { buildDiagnostics } from './diagnostics/diagnostics';
import { secretValues } from './diagnostics/secret-values';
import type { OpenSecretStoreResult } from './secrets/open-secret-store';
import type { Foundation, Runtimes } from './wiring';
import type { Profiles } from './wiring-profiles';

export function wireDiagnostics(f: Foundation, runtimes: Runtimes, p: Profiles, secrets: OpenSecretStoreResult): () => ReturnType<typeof buildDiagnostics> {
  const { options, paths, platform, clock } = f;
  return () =>
    buildDiagnostics({
      app: { name: options.appName, version: options.appVersion, mode: options.mode },
      platform,
      dataDir: paths.dataDir,
      logDir: paths.logDir,
      clock,
      hostSettings: () => f.hostSettings.get(),
      profiles: p.profiles,
      capabilities: runtimes.capabilities,
      tripped: () => runtimes.breaker.state,
      secrets: () =>
        secretValues({
          known: () => f.knownSecrets(),
          store: secrets.ok ? secrets.store : null,
          profiles: p.profiles.sessions().map((s) => ({
            id: s.profile.id,
            controlPlaneUrl: s.identity?.controlPlaneUrl ?? p.profiles.settingsOf(s.profile.id).get().controlPlaneUrl,
          })),
          env: { ...process.env, ...options.env, ...options.runtimeEnv },
          dataDir: paths.dataDir,
          ...(options.diagnosticsSecrets ? { extra: options.diagnosticsSecrets } : {}),
        }),
    });
}
