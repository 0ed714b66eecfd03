import type { UnitKind } from '../../../../shared/protocol';

/**
 * The command lines of the two runtimes. Facts checked against claude 2.1.197 and
 * codex-cli 0.171.0 running against loopback stubs (tests/real-cli):
 *
 * claude: `--allowedTools mcp__rost` (server-wide) and `mcp__rost__report_progress` (one
 * tool) both let the model call the control plane's tools; without it the call is refused
 * and listed in `permission_denials`. We allow the whole server: the control plane decides
 * what the unit's token may do, and no built-in tool (Bash, Edit, …) is allowed. Options
 * like `--allowedTools` are variadic, so the prompt goes after `--` (a prompt that starts
 * with "-" is then not read as an option either). `--strict-mcp-config` keeps the
 * operator's own MCP servers out of factory turns.
 *
 * codex: the MCP bearer comes from `mcp_servers.<name>.bearer_token_env_var`, so the token
 * travels in the child's environment (owner-only) instead of its argv (readable by every
 * user through `ps`). Tool calls need `default_tools_approval_mode="approve"` because
 * `approval_policy="never"` refuses anything that would ask.
 */
export const MCP_SERVER_NAME = 'rost';
export const CLAUDE_ALLOWED_TOOLS: readonly string[] = [`mcp__${MCP_SERVER_NAME}`];
export const CODEX_MCP_TOKEN_ENV = 'ROST_MCP_TOKEN';
export const CODEX_SANDBOX = 'workspace-write';

export type OutputMode = 'claude-json' | 'claude-text' | 'codex-jsonl';

export interface Invocation {
  args: string[];
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
}): Invocation {
  const json = input.kind === 'turn_execution';
  return {
    args: [
      '-p',
      '--strict-mcp-config',
      ...(input.mcpConfigPath ? ['--mcp-config', input.mcpConfigPath] : []),
      '--allowedTools',
      input.allowedTools.join(','),
      '--output-format',
      json ? 'json' : 'text',
      ...(input.resumeSessionId ? ['--resume', input.resumeSessionId] : []),
      '--',
      input.prompt,
    ],
    env: {},
    outputMode: json ? 'claude-json' : 'claude-text',
  };
}

export function codexInvocation(input: { prompt: string; cwd: string; mcp: { serverUrl: string; token: string } | null }): Invocation {
  const server = `mcp_servers.${MCP_SERVER_NAME}`;
  // `-c` values are TOML; a JSON string literal is a valid TOML basic string.
  const mcpArgs = input.mcp
    ? [
        '-c', `${server}.url=${JSON.stringify(input.mcp.serverUrl)}`,
        '-c', `${server}.bearer_token_env_var=${JSON.stringify(CODEX_MCP_TOKEN_ENV)}`,
        '-c', `${server}.default_tools_approval_mode="approve"`,
      ]
    : [];
  return {
    args: [
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--cd', input.cwd,
      '--sandbox', CODEX_SANDBOX,
      '-c', 'approval_policy="never"',
      ...mcpArgs,
      '--',
      input.prompt,
    ],
    env: input.mcp ? { [CODEX_MCP_TOKEN_ENV]: input.mcp.token } : {},
    outputMode: 'codex-jsonl',
  };
}
