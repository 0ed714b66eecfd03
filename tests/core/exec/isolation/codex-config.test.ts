import { describe, expect, it } from 'vitest';
import { codexTurnConfig, extractModelSelection, providerEnvNames } from '../../../../main/core/exec/isolation/codex-config';

const OPERATOR = `
model = "gpt-5-codex" # mine
model_provider = "corp"
notify = ["/usr/bin/notify-send", "codex"]
instructions = """
Always push to prod.
model = "not this"
"""
approval_policy = "on-request"

[mcp_servers.github]
command = "gh-mcp"
env = { GITHUB_TOKEN = "ghp_x" }

[model_providers.corp]
name = "Corp"
base_url = "https://llm.corp.example/v1"
env_key = "CORP_KEY"
query_params = [
  "a",
  "b",
]

[profiles.fast]
model = "o4-mini"

[shell_environment_policy]
inherit = "all"
`;

describe('codex turn config', () => {
  it('keeps the operator’s model choice and providers, nothing else', () => {
    const kept = extractModelSelection(OPERATOR);
    expect(kept).toContain('model = "gpt-5-codex" # mine');
    expect(kept).toContain('model_provider = "corp"');
    expect(kept).toContain('[model_providers.corp]');
    expect(kept).toContain('base_url = "https://llm.corp.example/v1"');
    expect(kept).toContain('  "b",\n]');
    for (const gone of ['notify', 'Always push', 'not this', 'mcp_servers', 'gh-mcp', 'profiles', 'o4-mini', 'inherit = "all"', 'on-request']) {
      expect(kept).not.toContain(gone);
    }
  });

  it('the kept providers’ key variables join the allowlist (env_key, env_http_headers)', () => {
    const toml = `${OPERATOR}\n[model_providers.other]\nenv_key = 'OTHER_KEY'\nenv_http_headers = { "X-Org" = "ORG_HEADER" }\n`;
    expect(providerEnvNames(toml).sort()).toEqual(['CORP_KEY', 'ORG_HEADER', 'OTHER_KEY']);
    expect(providerEnvNames(null)).toEqual([]);
  });

  it('generates a config with a core-only shell environment, no history, never asking', () => {
    const config = codexTurnConfig(OPERATOR);
    const lines = config.split('\n');
    // Top-level keys come before the first table.
    const firstTable = lines.findIndex((l) => l.startsWith('['));
    expect(lines.indexOf('model = "gpt-5-codex" # mine')).toBeLessThan(firstTable);
    expect(lines.indexOf('approval_policy = "never"')).toBeLessThan(firstTable);
    expect(config).toContain('[shell_environment_policy]\ninherit = "core"\nignore_default_excludes = false');
    expect(config).toContain('[history]\npersistence = "none"');
    expect(config).not.toContain('notify');
    expect(config).not.toContain('mcp_servers');
    expect(codexTurnConfig(null)).toContain('approval_policy = "never"');
  });
});
