import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../emulator';
import { startHarness, type Harness } from './core-harness';
import { gitOrigin, type GitOrigin } from './git-origin';

export const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));

export interface SechroomHost {
  h: Harness;
  emu: RunningEmulator;
  /** The instance's root: a git checkout with a bare origin. */
  git: GitOrigin;
  /** The host, the emulator (unless it was handed in) and the checkout, in that order. */
  close(): Promise<void>;
}

export interface SechroomHostOptions {
  /** How the app-server stub plays each turn (CODEX_STUB_SCENARIO). */
  scenario: object;
  /** An emulator to use (not closed by `close`); else one is started with `emulator`. */
  emu?: RunningEmulator;
  emulator?: StartEmulatorOptions;
  /** A checkout made by the caller (to name files in it before the host starts); else one is made. */
  git?: GitOrigin;
  /** More of the turns' environment (the stub's STUB_LOG). */
  runtimeEnv?: (git: GitOrigin) => Record<string, string>;
  /** Over the instance's defaults: `codex-a`, the checkout, a 1 s poll, the stub. */
  instance?: Record<string, unknown>;
  /** Over the rest of sechroom:configure (`raisePr: false`). */
  configure?: Record<string, unknown>;
  /** Between adding the profile and configuring it. */
  beforeConfigure?: (h: Harness) => Promise<unknown>;
}

/**
 * The real core with one Sechroom profile, `work`, on the emulator's Work Layer: signed in by
 * SECHROOM_TOKEN, its turns run by the scripted codex app-server, its root a git checkout.
 * A failure on the way leaves nothing behind.
 */
export async function startSechroomHost(options: SechroomHostOptions): Promise<SechroomHost> {
  const git = options.git ?? gitOrigin();
  let emu: RunningEmulator | null = options.emu ?? null;
  let h: Harness | null = null;
  const close = async () => {
    await h?.close();
    if (!options.emu) await emu?.close();
    git.cleanup();
  };
  try {
    emu ??= await startEmulator(options.emulator ?? {});
    const minted = emu.sechroom.mintToken();
    h = await startHarness({
      emu,
      core: {
        runtimeEnv: { CODEX_STUB_SCENARIO: JSON.stringify(options.scenario), ...options.runtimeEnv?.(git) },
        env: { ...process.env, SECHROOM_TOKEN: minted.access_token },
      },
    });
    await h.invoke('profiles:add', { name: 'Work', connector: 'sechroom' });
    await options.beforeConfigure?.(h);
    await h.invoke('sechroom:configure', {
      profile: 'work',
      baseUrl: emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-a', root: git.root, pollIntervalSeconds: 1, codexBin: APP_SERVER_STUB, ...options.instance },
      raisePr: false,
      ...options.configure,
    });
    return { h, emu, git, close };
  } catch (error) {
    await close();
    throw error;
  }
}
