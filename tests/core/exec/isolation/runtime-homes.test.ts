import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeHome, codexHome, installationRoots } from '../../../../main/core/exec/isolation/runtime-homes';

const CLAUDE_SIGN_IN = JSON.stringify({ claudeAiOauth: { accessToken: 'sk-ant-oat01-short', refreshToken: 'sk-ant-ort01-long', expiresAt: 1 } });
const CODEX_SIGN_IN = JSON.stringify({
  OPENAI_API_KEY: null,
  tokens: { id_token: 'id', access_token: 'access-short', refresh_token: 'refresh-long', account_id: 'a' },
});

let root: string;
let home: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rt-homes-')));
  home = path.join(root, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  mkdirSync(path.join(home, '.codex'), { recursive: true });
  writeFileSync(path.join(home, '.claude', '.credentials.json'), CLAUDE_SIGN_IN);
  writeFileSync(path.join(home, '.codex', 'auth.json'), CODEX_SIGN_IN);
  writeFileSync(path.join(home, '.codex', 'config.toml'), 'model = "o3"\nnotify = ["x"]\n[mcp_servers.mine]\ncommand = "x"\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('claude’s private home', () => {
  it('a new config folder in the turn’s folder; the sign-in from the operator’s folder, named as their claude names it', async () => {
    const workRoot = path.join(root, 'work');
    const turnRoot = path.join(root, 'turn');
    const plain = await claudeHome({ workRoot, turnRoot, env: { HOME: home }, home, sandboxed: true });
    expect(plain.env).toEqual({ CLAUDE_CONFIG_DIR: path.join(turnRoot, 'claude-config'), CLAUDE_SECURESTORAGE_CONFIG_DIR: '', DISABLE_AUTOUPDATER: '1' });
    expect(lstatSync(plain.env.CLAUDE_CONFIG_DIR as string).mode & 0o777).toBe(0o700);
    const credentials = path.join(home, '.claude', '.credentials.json');
    const copy = path.join(turnRoot, 'sign-in', '.credentials.json');
    // The turn's own copy, read-only where claude looks: never the operator's file.
    expect(plain.signIn).toEqual([{ source: copy, target: credentials, writable: false }]);
    expect(JSON.parse(readFileSync(copy, 'utf8'))).toEqual({ claudeAiOauth: { accessToken: 'sk-ant-oat01-short', expiresAt: 1 } });
    expect(readFileSync(credentials, 'utf8')).toBe(CLAUDE_SIGN_IN);
    // The operator's own CLAUDE_CONFIG_DIR, as written (the Keychain item name hashes it).
    const custom = await claudeHome({
      workRoot,
      turnRoot: path.join(root, 'turn-b'),
      env: { HOME: home, CLAUDE_CONFIG_DIR: `${home}/.claude` },
      home,
      sandboxed: false,
    });
    expect(custom.env.CLAUDE_SECURESTORAGE_CONFIG_DIR).toBe(`${home}/.claude`);
    expect(custom.signIn).toEqual([]); // nothing to bind without a sandbox
  });
});

describe('codex’s private home', () => {
  it('lets the operator’s model provider key variable through', async () => {
    writeFileSync(path.join(home, '.codex', 'config.toml'), 'model_provider = "corp"\n[model_providers.corp]\nenv_key = "CORP_KEY"\n');
    const turnRoot = path.join(root, 'turn3');
    mkdirSync(turnRoot);
    expect((await codexHome({ turnRoot, env: { HOME: home }, home, sandboxed: false })).allowEnv).toEqual(['CORP_KEY']);
  });

  it('a generated config.toml and a copy of the operator’s auth.json without its refresh token (read-only in a sandbox)', async () => {
    const turnRoot = path.join(root, 'turn');
    mkdirSync(turnRoot);
    const open = await codexHome({ turnRoot, env: { HOME: home }, home, sandboxed: false });
    const own = open.env.CODEX_HOME as string;
    expect(own).toBe(path.join(turnRoot, 'codex-home'));
    const config = readFileSync(path.join(own, 'config.toml'), 'utf8');
    expect(config).toContain('model = "o3"');
    expect(config).not.toContain('notify');
    expect(config).not.toContain('mcp_servers');
    expect(lstatSync(path.join(own, 'auth.json')).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(path.join(own, 'auth.json'), 'utf8'))).toEqual({
      OPENAI_API_KEY: null,
      tokens: { id_token: 'id', access_token: 'access-short', account_id: 'a' },
    });
    expect(readFileSync(path.join(home, '.codex', 'auth.json'), 'utf8')).toBe(CODEX_SIGN_IN);
    expect(open.args).toEqual(['--ignore-rules']);
    expect(open.allowEnv).toEqual([]);

    const boxedRoot = path.join(root, 'turn2');
    mkdirSync(boxedRoot);
    const boxed = await codexHome({ turnRoot: boxedRoot, env: { HOME: home }, home, sandboxed: true });
    const boxedAuth = path.join(boxedRoot, 'codex-home', 'auth.json');
    expect(boxed.signIn).toEqual([{ source: boxedAuth, target: boxedAuth, writable: false }]);
    expect(readFileSync(boxedAuth, 'utf8')).not.toContain('refresh-long');
  });

  it('copies nothing it cannot read as the expected JSON (a refresh token could pass through)', async () => {
    writeFileSync(path.join(home, '.codex', 'auth.json'), 'refresh_token=refresh-long');
    const turnRoot = path.join(root, 'turn4');
    mkdirSync(turnRoot);
    const boxed = await codexHome({ turnRoot, env: { HOME: home }, home, sandboxed: true });
    expect(boxed.signIn).toEqual([]);
    expect(existsSync(path.join(turnRoot, 'codex-home', 'auth.json'))).toBe(false);
  });
});

describe('the runtime’s installation', () => {
  it('is the node_modules a package sits in, or the folder of the executable; plus Node for a .js CLI', () => {
    const nm = path.join(root, 'app', 'node_modules');
    mkdirSync(path.join(nm, '@openai', 'codex', 'bin'), { recursive: true });
    writeFileSync(path.join(nm, '@openai', 'codex', 'bin', 'codex.js'), '');
    expect(installationRoots(path.join(nm, '@openai', 'codex', 'bin', 'codex.js'), '/usr/bin/node')).toEqual([nm, '/usr/bin']);
    mkdirSync(path.join(root, 'opt', 'claude'), { recursive: true });
    writeFileSync(path.join(root, 'opt', 'claude', 'claude'), '');
    expect(installationRoots(path.join(root, 'opt', 'claude', 'claude'), '/usr/bin/node')).toEqual([path.join(root, 'opt', 'claude')]);
  });
});
