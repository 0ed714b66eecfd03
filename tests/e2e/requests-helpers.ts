import { expect, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningEmulator, StartEmulatorOptions } from '../../emulator';
import { pendingCode, startStack } from './stack';
import type { RunningHost } from './headless-host';

/** Prompt `fake:wait:<ms>` works that long and succeeds; `fake:sleep` runs until killed. */
export const TIMED_RUNTIME = fileURLToPath(new URL('../fixtures/timed-runtime.mjs', import.meta.url));

export interface RequestsStack {
  emu: RunningEmulator;
  host: RunningHost;
  /** The emulator's SQLite file (for state its admin API will not create, e.g. 10,000-character titles). */
  dbFile: string;
  stop(): Promise<void>;
}

/**
 * The emulator (demo seed: Acme Robotics, Ada Admin, Max Member, six requests) in this
 * process with short intervals, and the real headless host pointed at it with the
 * owner-only file secret store and the timed fake runtime.
 */
export async function startRequestsStack(options: { emulator?: StartEmulatorOptions } = {}): Promise<RequestsStack> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-req-e2e-'));
  const dbFile = path.join(dir, 'emulator.sqlite');
  const stack = await startStack({
    emulator: { seed: 'demo', db: dbFile, ...options.emulator, config: { oauthIntervalSec: 1, leaseHeartbeatMs: 400, ...options.emulator?.config } },
    args: ['--heartbeat-ms', '1000'],
    runtime: TIMED_RUNTIME,
  });
  return {
    ...stack,
    dbFile,
    async stop() {
      // The host quits at once (RUNNER_TRAY_QUIT_DRAIN_MS=0 in headless-host.ts): running turns are canceled.
      await stack.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function operatorId(emu: RunningEmulator, name: 'Ada Admin' | 'Max Member'): string {
  const found = emu.admin.listOperators().find((o) => o.name === name);
  if (!found) throw new Error(`no operator ${name}`);
  return found.id;
}

export function requestId(emu: RunningEmulator, status: string): string {
  const found = emu.admin.listBuildRequests().find((r) => r.status === status);
  if (!found) throw new Error(`no ${status} request`);
  return found.id;
}

/** Opens the Requests view by its tab, as a person would. */
export async function openRequests(page: Page, stack: RequestsStack): Promise<void> {
  await stack.host.open(page);
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  await page.getByRole('tab', { name: 'Requests' }).click();
  await expect(page.getByTestId('requests-view')).toBeVisible();
}

/** Signs in through the window: start, read the code off the page, approve it on the emulator. */
export async function signInAs(page: Page, stack: RequestsStack, name: 'Ada Admin' | 'Max Member'): Promise<void> {
  await page.getByTestId('sign-in-start').click();
  const code = (await page.getByTestId('sign-in-code').textContent())?.trim() ?? '';
  expect(code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
  stack.emu.admin.decideOAuthDeviceCode(code, operatorId(stack.emu, name));
  await expect(page.getByTestId('operator-bar')).toContainText(name, { timeout: 10_000 });
}

/** The board row of a request. */
export function row(page: Page, id: string) {
  return page.locator(`[data-testid=request-row][data-request-id="${id}"]`);
}

export async function openDetail(page: Page, id: string): Promise<void> {
  await row(page, id).getByRole('button').click();
  await expect(page.getByTestId('request-detail')).toBeVisible();
  // The detail is pulled from the control plane through the host: give a busy machine time.
  try {
    await expect(page.getByTestId('detail-title')).toBeVisible({ timeout: 10_000 });
  } catch (error) {
    const shown = await page
      .getByTestId('requests-view')
      .innerText()
      .catch(() => '(no view)');
    throw new Error(`the detail did not load; the view shows:\n${shown}\n${String(error)}`);
  }
}

/** Pairs the headless host (it starts pairing by itself) by approving its code on the emulator. */
export async function pairHost(stack: RequestsStack): Promise<void> {
  stack.emu.admin.approvePairing(await pendingCode(stack.emu));
  await stack.emu.admin.waitForEvent('runner.heartbeat', { timeoutMs: 15_000, since: 0 });
}
