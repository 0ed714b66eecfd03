import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { LocalRuntimeExecutor, type ExecutionRequest, type LocalRuntimeExecutorOptions } from '../../../main/core/exec/executor';
import { testLogging } from '../../helpers/test-logger';

export const FAKE_RUNTIME = fileURLToPath(new URL('../../fixtures/fake-runtime.mjs', import.meta.url));
export const MCP_TOKEN = 'mcp-unit-token-9f8e7d6c5b4a3210';
export const RUNNER_SECRET = 'runner-secret-0a1b2c3d4e5f6789';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

export function tempDir(label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `rt-exec-${label}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function setup(options: Partial<LocalRuntimeExecutorOptions> = {}) {
  const workRoot = path.join(tempDir('work'), 'runtime');
  const logging = testLogging();
  const executor = new LocalRuntimeExecutor({ workRoot, log: logging.log, killGraceMs: 300, ...options });
  // Its sandboxes started ahead (warm-sandbox.ts) end with it, before its folder goes.
  cleanups.push(() => executor.stop());
  return { executor, workRoot, logging, turnDirs: () => listTurnDirs(workRoot) };
}

/** The turns' folders (not a spare sandbox's, started ahead for the next turn: `spares: true` lists those). */
export function listTurnDirs(workRoot: string, spares = false): string[] {
  try {
    return readdirSync(workRoot).filter((n) => n.startsWith(spares ? 'turn-spare-' : 'turn-') && (spares || !n.startsWith('turn-spare-')));
  } catch {
    return [];
  }
}

export function request(fakeEnv: Record<string, string>, overrides: Partial<ExecutionRequest> = {}): ExecutionRequest {
  return {
    unitId: 'unit-1',
    kind: 'turn_execution',
    runtime: 'claude',
    binary: FAKE_RUNTIME,
    prompt: 'do the work',
    mcp: { serverUrl: 'http://127.0.0.1:9/mcp', token: MCP_TOKEN },
    resumeSessionId: null,
    timeoutMs: 20_000,
    signal: new AbortController().signal,
    env: fakeEnv,
    knownSecrets: [MCP_TOKEN, RUNNER_SECRET],
    ...overrides,
  };
}
