import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bootstrapCore, type Core } from '../../../main/core/bootstrap';
import { openSecretStore } from '../../../main/core/secrets/open-secret-store';
import { profileDir, profileSecretAccount } from '../../../main/core/sessions/profile-store';

const CONTROL_PLANE = 'http://127.0.0.1:9';
const CANARY = {
  store: 'canaryStoreSecret7f3a9c1e5b2d8f40',
  tokenFile: 'canaryTokenFile2b7e4d9a1c6f3e85',
  env: 'canaryEnvApiKey9d1f6b3e8a4c2e71',
  settings: 'ghp_canarySettingsValue0123456789abcdef',
  log: 'sk-ant-api03-canaryLogLine4e8b2f7a9c1d3e5f60718293a4b5c6d7e8f9',
};

/** Every way a canary could come out: plain, JSON-escaped, base64, base64url, hex, URL-encoded. */
function encodings(secret: string): string[] {
  const b = Buffer.from(secret);
  return [secret, JSON.stringify(secret).slice(1, -1), b.toString('base64'), b.toString('base64url'), b.toString('hex'), encodeURIComponent(secret)];
}

let core: Core | null = null;
let dataDir = '';
afterEach(async () => {
  await core?.shutdown(0);
  core = null;
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the diagnostics bundle', () => {
  it('carries the expected files, each parses, and no planted secret in any encoding', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-diag-'));
    vi.stubEnv('ANTHROPIC_API_KEY', CANARY.env);
    const opened = await openSecretStore({ service: 'Runner Tray', dataDir, preferred: 'file', allowFileStore: true });
    if (!opened.ok) throw new Error(opened.reason);
    await opened.store.set(profileSecretAccount('default', CONTROL_PLANE), CANARY.store);
    // An older log line that went out before redaction, with every canary in it (one base64).
    mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
    const leaked = `${CANARY.store} ${CANARY.tokenFile} ${CANARY.env} ${Buffer.from(CANARY.store).toString('base64')} ${CANARY.log}`;
    writeFileSync(path.join(dataDir, 'logs', 'runner-tray.2026-01-01.1.log'), `${JSON.stringify({ level: 30, msg: leaked })}\n`);

    core = await bootstrapCore({
      mode: 'headless',
      appName: 'Runner Tray',
      appVersion: '0.0.0-test',
      dataDir,
      secretStore: opened,
      overrides: { controlPlaneUrl: CONTROL_PLANE, secretBackend: 'file' },
      runtimeBinaries: { claude: path.join(dataDir, 'no-claude'), codex: path.join(dataDir, 'no-codex') },
      workAutoClaim: false,
    });
    // A token file in the profile's folder (written once the host has made the folder).
    writeFileSync(path.join(profileDir(dataDir, 'default'), 'operator-token.json'), JSON.stringify({ accessToken: CANARY.tokenFile }));
    const patched = core.settings.update({ modelAccountState: CANARY.settings });
    expect(patched.ok).toBe(true);
    core.log.info('a line of this run', { note: `the model state is ${CANARY.settings}` });

    const result = await core.host.invoke('app:diagnostics', undefined);
    if (!result.ok) throw new Error(result.error.message);
    const answer = result.value as { fileName: string; zipBase64: string | null; savedTo: string | null };
    expect(answer.fileName).toMatch(/^runner-tray-diagnostics-.+\.zip$/);
    expect(answer.savedTo).toBeNull();
    const files = unzipSync(Buffer.from(answer.zipBase64 ?? '', 'base64'));

    const names = Object.keys(files);
    for (const name of ['README.txt', 'versions.json', 'settings.json', 'profiles.json', 'runtimes.json', 'isolation.json', 'storage.json']) {
      expect(names).toContain(name);
    }
    const logs = names.filter((n) => n.startsWith('logs/'));
    expect(logs.length).toBeGreaterThan(0);
    for (const name of names.filter((n) => n.endsWith('.json'))) expect(() => JSON.parse(strFromU8(files[name]!)), name).not.toThrow();
    for (const name of logs) {
      for (const line of strFromU8(files[name]!).split('\n').filter(Boolean)) expect(() => JSON.parse(line), name).not.toThrow();
    }
    const versions = JSON.parse(strFromU8(files['versions.json']!)) as { app: { version: string }; node: string };
    expect(versions).toMatchObject({ app: { version: '0.0.0-test' }, node: process.versions.node });
    const profiles = JSON.parse(strFromU8(files['profiles.json']!)) as { id: string; paired: boolean; plane: string }[];
    expect(profiles).toEqual([expect.objectContaining({ id: 'default', paired: false, plane: 'rost' })]);
    for (const name of names) expect(strFromU8(files['README.txt']!)).toContain(name === 'README.txt' || name.startsWith('logs/') ? '' : name);

    const everything = names.map((n) => Buffer.from(files[n]!).toString('latin1')).join('\n');
    expect(everything).toContain('a line of this run');
    for (const [where, secret] of Object.entries(CANARY)) {
      for (const form of encodings(secret)) expect(everything.includes(form), `the ${where} canary (${form.slice(0, 12)}…)`).toBe(false);
    }
  });
});
