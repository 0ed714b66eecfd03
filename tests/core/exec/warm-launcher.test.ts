import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gone, launchersOf } from '../../helpers/processes';
import { request, setup, tempDir } from './exec-helpers';

// Outside bubblewrap a turn starts through the parent-death launcher; after the first turn
// one launcher is started ahead (a spare) and the next turn hands it its command.

describe.skipIf(process.platform !== 'linux')('the warm launcher', () => {
  it('the turn after the first runs through the launcher started behind it, with its command, folder, environment and prompt', async () => {
    const { executor } = setup();
    expect((await executor.execute(request({ FAKE_MODE: 'json' }))).status).toBe('succeeded');
    const spares = await launchersOf(process.pid);
    expect(spares).toHaveLength(1);

    const report = path.join(tempDir('warm'), 'report.json');
    let pid = 0;
    const outcome = await executor.execute(
      request({ FAKE_MODE: 'inspect', FAKE_REPORT_FILE: report }, { unitId: 'unit-2', prompt: 'the second prompt', onSpawn: (p) => (pid = p) }),
    );
    expect(outcome.status).toBe('succeeded');
    expect(pid).toBe(spares[0]);
    const seen = JSON.parse(readFileSync(report, 'utf8')) as { stdin: string; cwd: string; envToken: string | null; argv: string[] };
    expect(seen.stdin).toBe('the second prompt');
    expect(path.basename(seen.cwd)).toBe('claude-cwd'); // a resumable claude turn's folder, not the spare's
    expect(seen.argv).toContain('--mcp-config');
    await executor.stop();
  });

  it('a command the warm launcher cannot start is a spawn error, and cancel stops a tree started through it', async () => {
    const { executor } = setup();
    await executor.execute(request({ FAKE_MODE: 'json' }));
    const missing = await executor.execute(request({}, { binary: '/nonexistent/bin/claude' }));
    expect(missing).toMatchObject({ status: 'failed', reason: 'spawn_error' });
    const spares = await launchersOf(process.pid);
    expect(spares).toHaveLength(1);

    const controller = new AbortController();
    let launcher = 0;
    const outcome = await executor.execute(
      request(
        { FAKE_MODE: 'spawn-child' },
        {
          signal: controller.signal,
          onSpawn: (p) => (launcher = p),
          onOutput: (tail) => (tail.includes('spawned') ? controller.abort() : undefined),
        },
      ),
    );
    expect(outcome.status).toBe('canceled');
    expect(launcher).toBe(spares[0]);
    const grandchild = Number(/spawned (\d+)/.exec(outcome.outputTail)?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    expect(await gone([launcher, grandchild], 10_000)).toEqual([]);
    await executor.stop();
  });

  it('a spare never outlives stop()', async () => {
    const { executor } = setup();
    await executor.execute(request({ FAKE_MODE: 'json' }));
    const spares = await launchersOf(process.pid);
    expect(spares).toHaveLength(1);
    await executor.stop();
    expect(await gone(spares)).toEqual([]);
    // None is started again after stop.
    expect(await launchersOf(process.pid)).toEqual([]);
  });
});
