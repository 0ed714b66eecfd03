import { expect, type Page } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../emulator';
import { startHeadlessHost, type RunningHost } from './headless-host';

/** The prompt-driven fake runtime: `fake:json` succeeds, `fake:sleep` runs until canceled. */
export const FAKE_RUNTIME = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
/** The demo's stand-in: progress lines, then an answer with usage (for realistic screenshots). */
export const DEMO_RUNTIME = fileURLToPath(new URL('../../scripts/demo-runtime.mjs', import.meta.url));

export interface Stack {
  emu: RunningEmulator;
  host: RunningHost;
  stop(): Promise<void>;
}

export interface StackOptions {
  emulator?: StartEmulatorOptions;
  /** Extra flags for the headless host (after --control-plane and the file store). */
  args?: string[];
  runtime?: string | null;
  env?: Record<string, string>;
}

/**
 * A control plane emulator in this process (fast intervals, so pairing and claiming take
 * a second, not thirty) and the real headless host pointed at it, in its own data
 * folder, with a fake runtime instead of claude and codex.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const emu = await startEmulator({
    ...options.emulator,
    config: {
      pairingIntervalSec: 1,
      nextHeartbeatMs: 1000,
      leaseHeartbeatMs: 500,
      longPollMaxMs: 2000,
      caps: { tenant: 8, project: 8, defaultAccount: 8 },
      ...options.emulator?.config,
    },
  });
  const runtime = options.runtime === undefined ? FAKE_RUNTIME : options.runtime;
  let host: RunningHost;
  try {
    host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store', ...(options.args ?? [])], {
      ...(runtime ? { RUNNER_TRAY_CLAUDE_BIN: runtime, RUNNER_TRAY_CODEX_BIN: runtime } : {}),
      ...options.env,
    });
  } catch (error) {
    await emu.close();
    throw error;
  }
  return {
    emu,
    host,
    async stop() {
      await host.stop();
      await emu.close();
    },
  };
}

/** The user code the host is waiting on (the headless host starts pairing by itself). */
export async function pendingCode(emu: RunningEmulator, timeoutMs = 10_000): Promise<string> {
  const newest = emu.admin
    .listPairings()
    .filter((p) => p.status === 'pending')
    .sort((a, b) => a.created_at.localeCompare(b.created_at))
    .at(-1);
  if (newest) return newest.user_code;
  // Not started yet: wait for the emulator to say it was, rather than polling.
  const started = await emu.admin.waitForEvent('pairing.started', { timeoutMs });
  return String(started.data.user_code);
}

/** Pairs the host by approving its code through the admin API, and waits for the window to say so. */
export async function pairThroughEmulator(page: Page, stack: Stack): Promise<void> {
  await stack.host.open(page, '#pairing');
  const code = await pendingCode(stack.emu);
  stack.emu.admin.approvePairing(code);
  await expect(page.getByTestId('paired-card')).toBeVisible({ timeout: 15_000 });
}

/** Opens a view by its tab, as a person would. */
export async function openView(page: Page, view: 'dashboard' | 'turns' | 'pairing' | 'activity' | 'settings'): Promise<void> {
  await page.getByTestId(`tab-${view}`).click();
  await expect(page.getByTestId(`view-${view}`)).toBeVisible();
}
