import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { slug } from '../../main/core/delivery/delivery-texts';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { gitOrigin, type GitOrigin } from './git-origin';

// `npm run headless -- --plane sechroom … --once`: the seed's `sechroom executor run --once`
// on the headless host, against the emulator's Work Layer, with SECHROOM_TOKEN and CODEX_BIN
// (the scripted app-server), the task delivered to its branch on a local bare origin.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));
const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let emu: RunningEmulator | null = null;
let repo: GitOrigin | null = null;
afterEach(async () => {
  await emu?.close();
  repo?.cleanup();
  emu = repo = null;
});

function headless(args: string[], env: Record<string, string>, cwd = repoRoot): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs'), path.join(repoRoot, 'main/headless/cli.ts'), ...args],
    {
      cwd,
      env: { ...process.env, RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1', RUNNER_TRAY_CLAUDE_BIN: FAKE, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('headless --plane sechroom', () => {
  it('--once claims one task, runs it in its worktree, delivers its branch and completes with the note; exit 0', async () => {
    emu = await startEmulator({});
    const git = gitOrigin();
    repo = git;
    const minted = emu.sechroom.mintToken();
    const task = emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export invoices as CSV.' });
    const { code, output } = await headless(
      [
        '--plane',
        'sechroom',
        '--control-plane',
        emu.sechroomUrl,
        '--tenant',
        minted.tenant,
        '--instance-key',
        'codex-a',
        '--root',
        git.root,
        '--poll-interval',
        '1',
        '--no-pr',
        '--once',
      ],
      {
        RUNNER_TRAY_DATA_DIR: path.join(git.dir, 'data'),
        SECHROOM_TOKEN: minted.access_token,
        CODEX_BIN: APP_SERVER_STUB,
        CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'closeout-on-nudge', writeFile: { name: 'export.csv', text: 'id,total\n' } }),
      },
    );
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).not.toContain(minted.access_token);
    const branch = `task/${slug(task.memoryId)}`;
    const [completion] = emu.sechroom.listCompletions({ memory_id: task.memoryId });
    expect(completion).toMatchObject({ verdict: 'pass', source: 'codex-a' });
    expect(completion!.text).toContain(`\n\nDelivery: `);
    expect(completion!.text).toContain(branch);
    expect(git.git(git.origin, 'show', `${branch}:export.csv`)).toBe('id,total\n');
    expect(emu.sechroom.listInstances()[0]).toMatchObject({ instanceKey: 'codex-a', status: 'deregistered' });
  });

  it('a rejected SECHROOM_TOKEN: --once prints the seed’s auth expired line and exits 1', async () => {
    emu = await startEmulator({});
    const git = gitOrigin();
    repo = git;
    const minted = emu.sechroom.mintToken();
    const args = [
      '--plane',
      'sechroom',
      '--control-plane',
      emu.sechroomUrl,
      '--tenant',
      minted.tenant,
      '--instance-key',
      'codex-a',
      '--root',
      git.root,
      '--once',
    ];
    const { code, output } = await headless(args, {
      RUNNER_TRAY_DATA_DIR: path.join(git.dir, 'data'),
      SECHROOM_TOKEN: 'not-a-token',
      CODEX_BIN: APP_SERVER_STUB,
    });
    expect(output).toContain(
      '[run] auth expired: SECHROOM_TOKEN was rejected (401) and cannot be refreshed — mint a fresh bearer and re-export SECHROOM_TOKEN.\n',
    );
    expect(code).toBe(1);
  });

  it('refuses a bad flag with the seed’s message and exits 2', async () => {
    const { code, output } = await headless(['--plane', 'sechroom', '--control-plane', 'http://127.0.0.1:1/sechroom', '--tenant', 't', '--root', '/r'], {});
    expect(code).toBe(2);
    expect(output).toContain('executor run requires an installed executor advertisement; run `sechroom executor install` first.');
  });

  it('in a checkout with .sechroom/executor.json and uncommitted changes: `--runtime codex --allow-dirty-root --once` runs as the advertisement says', async () => {
    emu = await startEmulator({});
    const git = gitOrigin();
    repo = git;
    mkdirSync(path.join(git.root, '.sechroom'));
    writeFileSync(
      path.join(git.root, '.sechroom', 'executor.json'),
      JSON.stringify({
        schemaVersion: 1,
        instanceKey: 'codex-x',
        relayId: 'sechroom-cli-local',
        laneId: 'lane-x',
        runtime: 'codex',
        connectorId: null,
        capabilityKeys: [],
        ttlSeconds: 600,
        refreshAfterSeconds: 300,
      }),
    );
    // The operator is mid-change in the checkout: the seed needs --allow-dirty-root for that, and keeps it out of the delivery.
    writeFileSync(path.join(git.root, 'README.md'), '# widgets (editing)\n');
    const minted = emu.sechroom.mintToken();
    const task = emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export invoices as CSV.' });
    const args = [
      '--plane',
      'sechroom',
      '--control-plane',
      emu.sechroomUrl,
      '--tenant',
      minted.tenant,
      '--runtime',
      'codex',
      '--allow-dirty-root',
      '--no-pr',
      '--once',
    ];
    const { code, output } = await headless(
      args,
      {
        RUNNER_TRAY_DATA_DIR: path.join(git.dir, 'data'),
        SECHROOM_TOKEN: minted.access_token,
        CODEX_BIN: APP_SERVER_STUB,
        CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'closeout-on-nudge', writeFile: { name: 'export.csv', text: 'id,total\n' } }),
      },
      git.root,
    );
    expect({ code, output }).toMatchObject({ code: 0 });
    expect(output).toContain('[run] driven executor live — instance codex-x, lane lane-x, single-task mode\n');
    expect(emu.sechroom.listInstances()[0]).toMatchObject({ instanceKey: 'codex-x', status: 'deregistered' });
    expect(emu.sechroom.listCompletions({ memory_id: task.memoryId })[0]).toMatchObject({ verdict: 'pass', source: 'lane-x' });
    const branch = `task/${slug(task.memoryId)}`;
    expect(git.git(git.origin, 'show', '--name-only', '--format=', branch).trim()).toBe('export.csv');
    expect(readFileSync(path.join(git.root, 'README.md'), 'utf8')).toBe('# widgets (editing)\n');

    // The advertisement of another runtime: the seed's refusal, before anything starts.
    writeFileSync(path.join(git.root, '.sechroom', 'executor.json'), JSON.stringify({ instanceKey: 'codex-x', runtime: 'claude-code' }));
    const refused = await headless(args, { RUNNER_TRAY_DATA_DIR: path.join(git.dir, 'data') }, git.root);
    expect(refused.code).toBe(2);
    expect(refused.output).toContain("this checkout's executor advertisement is runtime 'claude-code' — reinstall with --runtime codex.");
    const runtime = await headless([...args, '--runtime', 'claude-code'], { RUNNER_TRAY_DATA_DIR: path.join(git.dir, 'data') }, git.root);
    expect(runtime.output).toContain('executor run drives runtime codex only (claude-code stays attached)');
  });

  it('without SECHROOM_TOKEN, the server signs the Sechroom profile in by the device flow, printing the code, and registers once approved', async () => {
    emu = await startEmulator({});
    const git = gitOrigin();
    repo = git;
    const operator = emu.sechroom.mintToken();
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'main/headless/cli.ts',
        '--plane',
        'sechroom',
        '--control-plane',
        emu.sechroomUrl,
        '--tenant',
        operator.tenant,
        '--instance-key',
        'codex-a',
        '--root',
        git.root,
        '--port',
        '0',
      ],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          SECHROOM_TOKEN: '',
          RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1',
          RUNNER_TRAY_DATA_DIR: path.join(git.dir, 'data'),
          RUNNER_TRAY_CLAUDE_BIN: FAKE,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      let output = '';
      const code = await new Promise<string>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const found = /enter the code\s+(\S+)/.exec(output);
          if (found) resolve(found[1]!);
        });
      });
      expect(output).toContain(`open ${new URL(emu.sechroomUrl).origin}`);
      emu.admin.decideOAuthDeviceCode(code, operator.operator_id, 'approve');
      await expect.poll(() => emu!.sechroom.listInstances().map((i) => i.status), { timeout: 15_000 }).toEqual(['live']);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 40_000);
});
