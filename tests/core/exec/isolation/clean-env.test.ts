import { describe, expect, it } from 'vitest';
import { canAllow, cleanEnv, parseAllowList } from '../../../../main/core/exec/isolation';

const SECRET = 'rsec_abcdefghijklmnopqrstuvwxyz012345';

const source = {
  PATH: '/usr/bin',
  HOME: '/home/op',
  USER: 'op',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C',
  TZ: 'UTC',
  TERM: 'xterm',
  HTTPS_PROXY: 'http://proxy:3128',
  no_proxy: 'localhost',
  ANTHROPIC_API_KEY: 'sk-ant-operator',
  CLAUDE_CODE_USE_BEDROCK: '1',
  OPENAI_API_KEY: 'sk-openai',
  CODEX_HOME: '/home/op/.codex',
  RUNNER_TRAY_DATA_DIR: '/home/op/.config/Runner Tray',
  RUNNER_NAME: 'laptop',
  ROST_RUNNER_MODEL_ACCOUNT_ALIAS: 'x',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
  SSH_AUTH_SOCK: '/tmp/ssh-agent',
  XDG_RUNTIME_DIR: '/run/user/1000',
  GITHUB_TOKEN: 'ghp_operator',
  AWS_SECRET_ACCESS_KEY: 'aws',
  AWS_PROFILE: 'bedrock',
  ELECTRON_RUN_AS_NODE: '1',
  NODE_OPTIONS: '--require /tmp/evil.js',
  SMUGGLED: SECRET,
};

describe('cleanEnv', () => {
  it('passes the allowlist only: system, locale, proxies and the runtimes’ own variables', () => {
    expect(Object.keys(cleanEnv({ source, knownSecrets: [SECRET] })).sort()).toEqual(
      [
        'ANTHROPIC_API_KEY',
        'CLAUDE_CODE_USE_BEDROCK',
        'CODEX_HOME',
        'HOME',
        'HTTPS_PROXY',
        'LANG',
        'LC_ALL',
        'OPENAI_API_KEY',
        'PATH',
        'TERM',
        'TZ',
        'USER',
        'no_proxy',
      ].sort(),
    );
  });

  it('adds names from the settings, never the runner’s own', () => {
    const env = cleanEnv({ source, knownSecrets: [], extraAllow: ['AWS_PROFILE', 'RUNNER_NAME', 'DBUS_*', 'GITHUB_*'] });
    expect(env.AWS_PROFILE).toBe('bedrock');
    expect(env.GITHUB_TOKEN).toBe('ghp_operator');
    expect(env.RUNNER_NAME).toBeUndefined();
    expect(env.DBUS_SESSION_BUS_ADDRESS).toBeUndefined();
  });

  it('drops any variable holding a known secret, even an allowed or explicitly layered one', () => {
    const env = cleanEnv({
      source: { ...source, ANTHROPIC_AUTH_TOKEN: SECRET },
      knownSecrets: [SECRET],
      extraAllow: ['SMUGGLED'],
      layers: [{ EXTRA: SECRET, STUB_API_KEY: 'test' }],
    });
    expect(Object.values(env)).not.toContain(SECRET);
    expect(env.STUB_API_KEY).toBe('test');
  });

  it('the host’s explicit layer cannot set a never-passed name; the invocation’s own layer can (the unit’s MCP token)', () => {
    const env = cleanEnv({
      source: {},
      knownSecrets: ['unit-token-123456'],
      layers: [{ RUNNER_SECRET: 'x', HOME: '/tmp/h' }],
      ownLayers: [{ ROST_MCP_TOKEN: 'unit-token-123456' }],
    });
    expect(env).toEqual({ HOME: '/tmp/h', ROST_MCP_TOKEN: 'unit-token-123456' });
  });
});

describe('the allowlist setting', () => {
  it('accepts names and PREFIX_* patterns, refuses the runner’s families and prefixes that would cover them', () => {
    expect(['AWS_PROFILE', 'MY_*', '_X'].every(canAllow)).toBe(true);
    expect(['RUNNER_NAME', 'RUNNER_*', 'RUN*', 'R*', '*', 'DBUS_SESSION_BUS_ADDRESS', 'SSH_AUTH_SOCK', 'ELECTRON_X', '1BAD', 'A-B'].some(canAllow)).toBe(false);
    expect(parseAllowList(' AWS_PROFILE,MY_*  X ')).toEqual(['AWS_PROFILE', 'MY_*', 'X']);
  });
});
