// `--dry-run` [v1]: the real headless host against the emulator says, per lane the plane
// offers this runner (GET /api/runner/lanes), whether this machine can run its work, claims
// nothing, and exits 0 (all runnable) or 1. Claude is a fake runtime here; codex is absent.
import { seedCliHarness } from '../helpers/seed-cli-host';
import { describe, expect, it } from 'vitest';

const cli = seedCliHarness('runner-tray-dryrun-');
const { setup, host, seedStateFile } = cli;

describe('the headless host with --dry-run', () => {
  it('says per lane whether this machine can run it, claims nothing, exits 1 while a lane is not runnable and 0 once all are', async () => {
    await setup();
    const seed = seedStateFile();
    const claude = cli.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    const codex = cli.emu.admin.enqueueWorkOrder({ brain: 'codex', prompt: 'fake:json' });
    const first = host(['--dry-run', '--execute', '--state-file', seed.file]);
    expect(await first.exited).toBe(1);
    expect(first.lines.some((l) => /^dry run: lane claude \(1 queued\): runnable — runs on claude \(\S+\)$/.test(l))).toBe(true);
    expect(first.lines.some((l) => /^dry run: lane codex \(1 queued\): NOT runnable — codex is not installed$/.test(l))).toBe(true);
    expect(first.lines).toContain('dry run: 1 lane(s) not runnable here; nothing was claimed');
    expect(cli.emu.admin.listEvents({ type: 'unit.claimed', limit: 100 })).toEqual([]);
    expect(cli.emu.admin.getUnit(claude.id)?.status).toBe('queued');

    cli.emu.admin.cancelUnit(codex.id);
    const second = host(['--dry-run', '--execute']);
    expect(await second.exited).toBe(0);
    expect(second.lines).toContain('dry run: every lane is runnable here; nothing was claimed');
    expect(cli.emu.admin.listEvents({ type: 'unit.claimed', limit: 100 })).toEqual([]);
    expect(first.lines.concat(second.lines).join('\n')).not.toContain(seed.secret);
  }, 60_000);

  it('against a plane that lists no lanes, checks each runtime instead', async () => {
    await setup();
    const seed = seedStateFile();
    cli.emu.admin.addFault({ route: '/api/runner/lanes', error: { rate: 1, status: 404 } });
    const h = host(['--dry-run', '--execute', '--state-file', seed.file]);
    expect(await h.exited).toBe(1);
    expect(h.lines).toContain('dry run: the control plane lists no lanes; checking each runtime instead');
    expect(h.lines.some((l) => l.startsWith('dry run: lane claude: runnable'))).toBe(true);
    expect(h.lines.some((l) => l.startsWith('dry run: lane codex: NOT runnable'))).toBe(true);
  }, 60_000);
});
