import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keepClaudeSession, restoreClaudeSession } from '../../../main/core/exec/isolation/claude-sessions';
import { request, setup, tempDir } from './exec-helpers';

// Every turn starts from a new runtime config: what one turn plants in its config folder
// (hooks, CLAUDE.md, MCP servers, rules) is not there for the next, and a resumed claude
// turn gets back only its session transcript.

const PLANTER = fileURLToPath(new URL('../../fixtures/planting-runtime.mjs', import.meta.url));

interface Report {
  configDir: string;
  found: string[];
  marks: string[];
  resumedLines: number | null;
}

function planter(label: string, extra: Record<string, string> = {}): { env: Record<string, string>; read: () => Report } {
  const file = path.join(tempDir(label), 'report.json');
  return { env: { PLANT_REPORT: file, ...extra }, read: () => JSON.parse(readFileSync(file, 'utf8')) as Report };
}

describe('a fresh runtime config for every turn', () => {
  it('claude: the next turn’s config dir has nothing the last one planted; resume gets only the transcript', async () => {
    const { executor, workRoot } = setup();
    const first = planter('claude-1', { PLANT_SESSION: 'bbbbbbbb-0000-0000-0000-000000000002' });
    const one = await executor.execute(request(first.env, { binary: PLANTER }));
    expect(one).toMatchObject({ status: 'succeeded', sessionId: 'bbbbbbbb-0000-0000-0000-000000000002' });

    const second = planter('claude-2');
    const two = await executor.execute(request(second.env, { binary: PLANTER, prompt: 'turn two', resumeSessionId: one.sessionId ?? null }));
    expect(two.status).toBe('succeeded');
    const seen = second.read();
    expect(seen.marks).toEqual([]);
    // Only the transcript came back: no settings.json, CLAUDE.md, config.toml or rules.
    expect(seen.found.filter((f) => !f.startsWith('projects/'))).toEqual([]);
    expect(seen.found.filter((f) => f.startsWith('projects/'))).toEqual([expect.stringMatching(/\/bbbbbbbb-0000-0000-0000-000000000002\.jsonl$/)]);
    expect(seen.resumedLines).toBe(1);
    expect(seen.configDir).not.toBe(first.read().configDir);
    // Neither config dir outlives its turn; the kept transcript holds both turns.
    expect(existsSync(seen.configDir)).toBe(false);
    expect(existsSync(path.join(workRoot, 'claude-config'))).toBe(false);

    const third = planter('claude-3');
    await executor.execute(request(third.env, { binary: PLANTER, prompt: 'turn three', resumeSessionId: one.sessionId ?? null }));
    expect(third.read()).toMatchObject({ marks: [], resumedLines: 2 });
  });

  it('codex exec: the next turn’s CODEX_HOME has no planted MCP server, AGENTS.md or rules', async () => {
    const { executor } = setup();
    const first = planter('codex-1');
    expect((await executor.execute(request(first.env, { binary: PLANTER, runtime: 'codex' }))).status).toBe('succeeded');
    const second = planter('codex-2');
    await executor.execute(request(second.env, { binary: PLANTER, runtime: 'codex' }));
    const seen = second.read();
    expect(seen.marks).toEqual([]);
    expect(seen.found).not.toContain('AGENTS.md');
    expect(seen.found).not.toContain('rules/planted.rules');
  });

  it('at start, the shared config folder of an earlier version is removed', async () => {
    const { executor, workRoot } = setup();
    mkdirSync(path.join(workRoot, 'claude-config'), { recursive: true });
    writeFileSync(path.join(workRoot, 'claude-config', 'settings.json'), '{"hooks":{}}');
    await executor.sweepStale();
    expect(existsSync(path.join(workRoot, 'claude-config'))).toBe(false);
  });
});

describe('the kept session transcript', () => {
  it('is copied only as a regular file: a link a turn left there is not followed', async () => {
    const root = tempDir('sessions');
    const secret = path.join(root, 'operator-secret');
    writeFileSync(secret, 'operator-only');
    const config = path.join(root, 'config');
    mkdirSync(path.join(config, 'projects', '-cwd'), { recursive: true });
    symlinkSync(secret, path.join(config, 'projects', '-cwd', 'sess-1.jsonl'));
    expect(await keepClaudeSession(path.join(root, 'work'), config, 'sess-1')).toBe(false);
    const next = path.join(root, 'next');
    expect(await restoreClaudeSession(path.join(root, 'work'), next, 'sess-1')).toBe(false);
    expect(existsSync(path.join(next, 'projects', '-cwd', 'sess-1.jsonl'))).toBe(false);
  });

  it('an id that names another folder is refused', async () => {
    const root = tempDir('sessions-id');
    expect(await restoreClaudeSession(root, path.join(root, 'c'), '../x')).toBe(false);
    expect(await keepClaudeSession(root, path.join(root, 'c'), 'a/../../b')).toBe(false);
  });
});
