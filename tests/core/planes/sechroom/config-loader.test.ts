import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SechroomConfigLoader } from '../../../../main/core/planes/sechroom/sechroom-config-loader';
import { loadSechroomConfig, saveSechroomConfig, type SechroomProfileConfig } from '../../../../main/core/planes/sechroom/sechroom-config';
import { checkSechroomConfig } from '../../../../shared/sechroom-instance-settings';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

const checked = checkSechroomConfig({ baseUrl: 'https://wl.example.com/sechroom', tenant: 't1', instance: { instanceKey: 'box-1', root: '/srv/repo' } });
if (!checked.ok) throw new Error(checked.message);
const config: SechroomProfileConfig = checked.config;

/** A data folder that cannot be used: its parent is a file (ENOTDIR, as a read-only or gone folder would fail), until `fix()`. */
async function brokenFolder() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'rt-sechroom-cfg-'));
  const blocker = path.join(root, 'profile');
  await writeFile(blocker, 'not a folder');
  return { dir: path.join(blocker, 'sechroom'), fix: () => rm(blocker) };
}

/**
 * Waits until `done`, moving the fake clock to each retry. The retry does real file I/O,
 * which a loaded machine can hold up for many event-loop turns, so the bound is a
 * generous time (not a count of turns), and each check yields to the I/O in between.
 */
async function until(clock: FakeClock, done: () => boolean, advance = true) {
  const bound = Date.now() + 20_000;
  while (!done() && Date.now() < bound) {
    if (advance && clock.nextDueAt !== null) await clock.advanceAsync(clock.nextDueAt - clock.now());
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  expect(done()).toBe(true);
}

describe('a Sechroom profile whose settings folder fails at start', () => {
  it('a file that cannot be read is retried with backoff, and the profile hears when it works again', async () => {
    const { dir, fix } = await brokenFolder();
    const clock = new FakeClock();
    const { log } = testLogging();
    const recovered: (SechroomProfileConfig | null)[] = [];
    const loader = new SechroomConfigLoader({ dir, clock, log, random: () => 1, recovered: (c) => recovered.push(c) });
    const first = await loader.load();
    expect(first.config).toBeNull();
    expect(first.problem).toMatch(/ENOTDIR|not a directory/);
    expect(clock.timerCount).toBe(1);
    await clock.advanceAsync(1_000);
    // The retry fails while the folder is broken, and sets the next one.
    await until(clock, () => clock.timerCount === 1 && clock.nextDueAt! > clock.now(), false);
    expect(recovered).toEqual([]);
    await fix();
    await saveSechroomConfig(dir, config);
    await until(clock, () => recovered.length > 0);
    expect(recovered).toEqual([config]);
    expect(clock.timerCount).toBe(0);
  });

  it('handed-in settings are used at once and saved once the folder lets us', async () => {
    const { dir, fix } = await brokenFolder();
    const clock = new FakeClock();
    const { log, entries } = testLogging();
    let recovered = 0;
    const loader = new SechroomConfigLoader({ dir, initial: config, clock, log, random: () => 1, recovered: () => recovered++ });
    expect(await loader.load()).toEqual({ config, problem: null });
    expect(entries.some((e) => /could not be saved/.test(e.msg))).toBe(true);
    await fix();
    await until(clock, () => recovered > 0);
    expect(recovered).toBe(1);
    expect(await loadSechroomConfig(dir)).toEqual(config);
  });

  it('stop() ends the retries', async () => {
    const { dir } = await brokenFolder();
    const clock = new FakeClock();
    const loader = new SechroomConfigLoader({ dir, clock, log: testLogging().log, recovered: () => {} });
    await loader.load();
    loader.stop();
    expect(clock.timerCount).toBe(0);
  });
});
