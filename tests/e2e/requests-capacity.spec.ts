import { expect, test } from '@playwright/test';
import { openRequests, signInAs, startRequestsStack, type RequestsStack } from './requests-helpers';

// The tenant's runner capacity (software_factory.capacity.list) under the board: the real
// headless host against the emulator, a runner reporting through its heartbeat.

let stack: RequestsStack;

test.afterEach(async () => {
  await stack?.stop();
});

test("the board shows the tenant's runner capacity: runner, runtimes, active sessions and usage state", async ({ page }) => {
  stack = await startRequestsStack();
  await openRequests(page, stack);
  await signInAs(page, stack, 'Max Member');
  // Observations arrive with runners' heartbeats; the table looks again every 15 s.
  const capacity = page.getByTestId('capacity');
  await expect(capacity).toBeVisible();
  const runner = stack.emu.admin.createRunner({ name: 'gpu-box' });
  const res = await fetch(`${stack.emu.url}/api/runner/heartbeat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${runner.runner_secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ telemetry: { active_sessions: 2, max_sessions: 3, runtimes: ['codex'], model_account: { state: 'available' } } }),
  });
  expect(res.status).toBe(200);
  const row = page.getByTestId('capacity-row').filter({ hasText: 'gpu-box' });
  await expect(row).toContainText('codex', { timeout: 20_000 });
  await expect(row).toContainText('2 of 3');
  await expect(row).toContainText('available');
});
