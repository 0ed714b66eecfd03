import { seedCliHarness } from '../helpers/seed-cli-host';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = seedCliHarness('runner-tray-seedcli-');
const { setup, host, seedStateFile } = cli;

describe('the headless host as a drop-in for `rost runner serve`', () => {
  it('runs a real unit file line: --execute --state-file <seed file> --heartbeat-ms 30000', async () => {
    await setup();
    const seed = seedStateFile();
    const h = host(['--execute', '--state-file', seed.file, '--heartbeat-ms', '30000']);
    await h.line(/^Took over runner /);
    await h.line(/^Mode: runs work on this machine \(--execute\) with claude\.$/);
    const beat = await h.line(/^heartbeat ok #1 runner_id=(\S+) claude=true codex=false$/);
    expect(beat[1]).toBe(seed.runnerId);
    // The secret left the seed file (identity kept), and the runner takes work.
    const rewritten = JSON.parse(readFileSync(seed.file, 'utf8')) as Record<string, unknown>;
    expect(rewritten).toMatchObject({ runner_id: seed.runnerId, name: 'rack-7' });
    expect(rewritten.runner_secret).toBeUndefined();
    const unit = cli.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    await cli.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 15_000, since: 0 });
    expect(cli.emu.admin.listResults({ unit_id: unit.id })[0]).toMatchObject({ status: 'succeeded' });
    expect(h.lines.join('\n')).not.toContain(seed.secret);
    h.child.kill('SIGTERM');
    expect(await h.exited).toBe(0);
  }, 40_000);

  it('heartbeat-only with RUNNER_EXECUTE=0: says so at start and claims nothing', async () => {
    await setup();
    const seed = seedStateFile();
    const unit = cli.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    const h = host(['--state-file', seed.file, '--heartbeat-ms', '1000', '--port', '0'], { RUNNER_EXECUTE: '0' });
    await h.line(/^Mode: heartbeat only — nothing is claimed \(RUNNER_EXECUTE=0\)\.$/);
    await h.line(/^heartbeat ok #3 runner_id=/);
    await h.line(/^Status: Idle — Heartbeat only: this machine takes no work/);
    expect(cli.emu.admin.listEvents({ type: 'unit.claimed', limit: 100 })).toEqual([]);
    expect(cli.emu.admin.getUnit(unit.id)?.status).toBe('queued');
    h.child.kill('SIGTERM');
    expect(await h.exited).toBe(0);
  }, 40_000);

  it.each([
    [{}, '--state-file without --execute'],
    [{ RUNNER_EXECUTE: 'true' }, 'RUNNER_EXECUTE=true'],
  ])(
    'a seed unit line without --execute is heartbeat only, as the seed’s (%o)',
    async (env, source) => {
      await setup();
      const seed = seedStateFile();
      const unit = cli.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
      const h = host(['--state-file', seed.file, '--heartbeat-ms', '1000', '--port', '0'], env);
      await h.line(new RegExp(`^Mode: heartbeat only — nothing is claimed \\(${source}\\)\\.$`));
      await h.line(/^heartbeat ok #2 runner_id=/);
      expect(cli.emu.admin.listEvents({ type: 'unit.claimed', limit: 100 })).toEqual([]);
      expect(cli.emu.admin.getUnit(unit.id)?.status).toBe('queued');
      h.child.kill('SIGTERM');
      expect(await h.exited).toBe(0);
    },
    40_000,
  );

  it('--once: one heartbeat, one claim and run, exit 0; then exit 1 when the heartbeat fails', async () => {
    // The plane asks for the next beat in a minute: on a loaded machine the run can outlast
    // a 1 s cadence, and a second beat then would be right, not a defect.
    await setup({ nextHeartbeatMs: 60_000 });
    const seed = seedStateFile();
    const unit = cli.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    const once = host(['--once', '--execute', '--state-file', seed.file]);
    expect(await once.exited).toBe(0);
    expect(once.lines).toContain(`heartbeat ok #1 runner_id=${seed.runnerId} claude=true codex=false`);
    expect(cli.emu.admin.listResults({ unit_id: unit.id })[0]).toMatchObject({ status: 'succeeded' });
    expect(once.lines.filter((l) => l.startsWith('heartbeat ok'))).toHaveLength(1);

    cli.emu.admin.addFault({ route: '/api/runner/heartbeat', error: { rate: 1, status: 503 } });
    const failing = host(['--once']);
    expect(await failing.exited).toBe(1);
    expect(failing.lines.some((l) => l.startsWith('heartbeat failed: '))).toBe(true);
  }, 60_000);

  it('pairs with --user-code from the web page and prints the seed line', async () => {
    await setup();
    const code = cli.emu.admin.issuePairingCode({ name: '' }).user_code;
    const h = host(['--once', '--user-code', code, '--name', 'from-the-web']);
    await h.line(/^Pairing with the code you were given \([A-Z]{4}-[A-Z]{4}\)…$/);
    const paired = await h.line(/^paired runner_id=(\S+) state_file=(.+)$/);
    expect(paired[2]).toBe(path.join(cli.dir, 'data', 'profiles', 'default', 'runner-state.json'));
    expect(await h.exited).toBe(0);
    expect(cli.emu.admin.listRunners().find((r) => r.id === paired[1])).toMatchObject({ name: 'from-the-web' });
  }, 40_000);

  it('on a later start, says so when the state file is newer and holds another runner', async () => {
    await setup();
    const seed = seedStateFile();
    const first = host(['--once', '--state-file', seed.file]);
    expect(await first.exited).toBe(0);
    // A seed CLI paired again with the same file afterwards.
    const other = cli.emu.admin.createRunner({ name: 'other' });
    writeFileSync(seed.file, JSON.stringify({ runner_id: other.runner_id, runner_secret: other.runner_secret }));
    const later = new Date(Date.now() + 60_000);
    utimesSync(seed.file, later, later);
    const second = host(['--once', '--state-file', seed.file]);
    expect(await second.exited).toBe(0);
    const warning = second.lines.find((l) => l.startsWith('Warning: '));
    expect(warning).toContain(`holds another runner (runner_id=${other.runner_id}, with its secret). This machine stays runner ${seed.runnerId}.`);
    expect(second.lines.join('\n')).not.toContain(other.runner_secret);
  }, 60_000);

  it('refuses a bad flag with exit 2 and the seed message (the rest: tests/core/settings/overrides.test.ts)', async () => {
    await setup();
    const h = host(['--execute', '--heartbeat-ms', '999']);
    expect(await h.exited).toBe(2);
    expect(h.lines[0]).toBe('runner-tray headless: --heartbeat-ms must be an integer >= 1000.');
  }, 30_000);
});
