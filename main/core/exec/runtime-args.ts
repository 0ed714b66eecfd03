import type { UnitKind } from '../../../shared/protocol';

/**
 * The command lines of the two runtimes. Facts checked against claude 2.1.197 and
 * codex-cli 0.171.0 running against loopback stubs (tests/real-cli):
 *
 * The prompt always travels on stdin, never in argv: argv is readable by every local
 * user (`ps`, /proc/<pid>/cmdline) and bounded (E2BIG past ~128 KiB on Linux). claude
 * `-p` without a prompt argument reads it from stdin; `codex exec -` does.
 *
 * claude: `--allowedTools mcp__rost` (server-wide) lets the model call the control
 * plane's tools and nothing else (no Bash, Edit, …); without it the call is refused and
 * listed in `permission_denials`. Unattended turns load only the runner's own settings
 * (`--setting-sources user`, where "user" is the runner's private CLAUDE_CONFIG_DIR, see
 * isolation/runtime-homes.ts) and only the MCP server of the unit (`--strict-mcp-config`).
 * With the operator's "use my own settings" on, both limits are dropped. Resumable turns
 * print `stream-json` (which needs `--verbose` with `-p`): one event per line as the turn
 * goes (the live transcript), ending with the same result object `json` prints.
 *
 * codex: the MCP bearer comes from `mcp_servers.<name>.bearer_token_env_var`, so the token
 * travels in the child's environment (owner-only) instead of its argv. Tool calls need
 * `default_tools_approval_mode="approve"` because `approval_policy="never"` refuses
 * anything that would ask. Its configuration comes from a private CODEX_HOME.
 */
export const MCP_SERVER_NAME = 'rost';
export const CLAUDE_ALLOWED_TOOLS: readonly string[] = [`mcp__${MCP_SERVER_NAME}`];
export const CODEX_MCP_TOKEN_ENV = 'ROST_MCP_TOKEN';
export const CODEX_SANDBOX = 'workspace-write';

export type OutputMode = 'claude-stream' | 'claude-text' | 'codex-jsonl';

export interface Invocation {
  args: string[];
  /** Written to the child's stdin, which is then closed. */
  stdin: string;
  /** Variables this invocation adds to the child's environment. */
  env: Record<string, string>;
  outputMode: OutputMode;
}

export function claudeInvocation(input: {
  prompt: string;
  kind: UnitKind;
  mcpConfigPath: string | null;
  resumeSessionId: string | null;
  allowedTools: readonly string[];
  /** The operator's "use my own claude/codex settings" (off by default). */
  ownConfig?: boolean;
}): Invocation {
  const json = input.kind === 'turn_execution';
  return {
    args: [
      '-p',
      ...(input.ownConfig ? [] : ['--setting-sources', 'user', '--strict-mcp-config']),
      ...(input.mcpConfigPath ? ['--mcp-config', input.mcpConfigPath] : []),
      '--allowedTools',
      input.allowedTools.join(','),
      '--output-format',
      ...(json ? ['stream-json', '--verbose'] : ['text']),
      ...(input.resumeSessionId ? ['--resume', input.resumeSessionId] : []),
    ],
    stdin: input.prompt,
    env: {},
    outputMode: json ? 'claude-stream' : 'claude-text',
  };
}

export function codexInvocation(input: {
  prompt: string;
  cwd: string;
  mcp: { serverUrl: string; token: string } | null;
  /** Options the isolation adds (`--ignore-rules`). */
  extraArgs?: readonly string[];
}): Invocation {
  const server = `mcp_servers.${MCP_SERVER_NAME}`;
  // `-c` values are TOML; a JSON string literal is a valid TOML basic string.
  const mcpArgs = input.mcp
    ? [
        '-c',
        `${server}.url=${JSON.stringify(input.mcp.serverUrl)}`,
        '-c',
        `${server}.bearer_token_env_var=${JSON.stringify(CODEX_MCP_TOKEN_ENV)}`,
        '-c',
        `${server}.default_tools_approval_mode="approve"`,
      ]
    : [];
  return {
    args: [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--cd',
      input.cwd,
      '--sandbox',
      CODEX_SANDBOX,
      '-c',
      'approval_policy="never"',
      ...(input.extraArgs ?? []),
      ...mcpArgs,
      '-',
    ],
    stdin: input.prompt,
    env: input.mcp ? { [CODEX_MCP_TOKEN_ENV]: input.mcp.token } : {},
    outputMode: 'codex-jsonl',
  };
}
