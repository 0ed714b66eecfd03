import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalRuntimeExecutor, type ExecutionRequest } from '../../main/core/exec/executor';
import { testLogging } from '../helpers/test-logger';

/** The real CLIs, installed as dev dependencies (REAL-RUNTIMES.md). */
const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));
export const CLAUDE_BIN = bin('claude');
export const CODEX_BIN = bin('codex');

/** Every real turn is bounded by the executor's own timeout, which kills the tree by pid. */
export const TURN_TIMEOUT_MS = 45_000;

export function tempDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `rt-real-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** claude offline against the Messages stub: own HOME, no telemetry, no retries. */
export function claudeEnv(home: string, apiUrl: string): Record<string, string> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'test',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    API_TIMEOUT_MS: '15000',
  };
}

/** codex offline: a CODEX_HOME whose config points the model at the Responses stub. */
export function codexEnv(home: string, responsesBaseUrl: string): Record<string, string> {
  writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model = "stub-model"',
      'model_provider = "stub"',
      '',
      '[model_providers.stub]',
      'name = "stub"',
      `base_url = ${JSON.stringify(responsesBaseUrl)}`,
      'wire_api = "responses"',
      'env_key = "STUB_API_KEY"',
      '',
    ].join('\n'),
  );
  return { HOME: home, CODEX_HOME: home, STUB_API_KEY: 'test' };
}

export function realExecutor(workRoot: string) {
  const logging = testLogging();
  return { executor: new LocalRuntimeExecutor({ workRoot, log: logging.log }), logging };
}

export function realRequest(overrides: Partial<ExecutionRequest> & Pick<ExecutionRequest, 'runtime' | 'binary' | 'env'>): ExecutionRequest {
  return {
    unitId: 'real-unit',
    kind: 'turn_execution',
    prompt: 'Report your progress with the report_progress tool, then say you are done.',
    mcp: null,
    resumeSessionId: null,
    timeoutMs: TURN_TIMEOUT_MS,
    signal: new AbortController().signal,
    knownSecrets: [],
    ...overrides,
  };
}
