import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../helpers/fake-clock';
import { KeychainSecretStore, type KeytarLike } from '../../../main/core/secrets/keychain-secret-store';
import { describeSecretStorage, openSecretStore } from '../../../main/core/secrets/open-secret-store';
import { SECRET_SERVICE, SecretStoreError, operatorAccount, runnerAccount } from '../../../main/core/secrets/secret-store';

class FakeKeytar implements KeytarLike {
  entries = new Map<string, string>();
  calls: string[] = [];
  async getPassword(service: string, account: string) {
    this.calls.push('get');
    return this.entries.get(`${service}/${account}`) ?? null;
  }
  async setPassword(service: string, account: string, password: string) {
    this.calls.push('set');
    this.entries.set(`${service}/${account}`, password);
  }
  async deletePassword(service: string, account: string) {
    this.calls.push('delete');
    return this.entries.delete(`${service}/${account}`);
  }
}

const never = <T>() => new Promise<T>(() => {});

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'rt-open-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const base = () => ({ service: SECRET_SERVICE, dataDir, preferred: 'keychain' as const, allowFileStore: false });

describe('openSecretStore', () => {
  it('uses a keychain that passes a real round trip, and cleans up its probe', async () => {
    const keytar = new FakeKeytar();
    const r = await openSecretStore({ ...base(), keytarLoader: async () => keytar });
    expect(r).toMatchObject({ ok: true, backend: 'keychain' });
    expect(r.ok && r.warning).toBeFalsy();
    expect(keytar.calls).toEqual(['set', 'get', 'delete']);
    expect(keytar.entries.size).toBe(0);
    expect(describeSecretStorage(r)).toEqual({ backend: 'keychain', warning: null, problem: null });
  });

  it('fails closed when keytar cannot be loaded and the file store was not chosen', async () => {
    const r = await openSecretStore({
      ...base(),
      keytarLoader: async () => {
        throw new Error('libsecret-1.so.0: cannot open shared object file');
      },
    });
    expect(r).toEqual({
      ok: false,
      reason:
        'The OS keychain is not usable (The OS keychain module could not be loaded (libsecret-1.so.0: cannot open shared object file)). ' +
        'Install and unlock a Secret Service (e.g. gnome-keyring), or start with --allow-file-secret-store to keep the secret in an owner-only file.',
    });
    expect(existsSync(join(dataDir, 'secrets'))).toBe(false);
    expect(describeSecretStorage(r)).toMatchObject({ backend: 'none', warning: null });
  });

  it('fails closed when the keychain module never loads (timeout)', async () => {
    const clock = new FakeClock();
    const pending = openSecretStore({ ...base(), keytarLoader: never, clock, timeoutMs: 5000 });
    await clock.advanceAsync(5000);
    const r = await pending;
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toBe(
      'The OS keychain is not usable (The OS keychain did not answer within 5 s while loading the keychain module). ' +
        'Install and unlock a Secret Service (e.g. gnome-keyring), or start with --allow-file-secret-store to keep the secret in an owner-only file.',
    );
  });

  it('fails closed when a keychain call hangs (a locked Secret Service)', async () => {
    const clock = new FakeClock();
    const keytar = new FakeKeytar();
    keytar.setPassword = () => never();
    const pending = openSecretStore({ ...base(), keytarLoader: async () => keytar, clock });
    await clock.advanceAsync(5000);
    const r = await pending;
    expect(!r.ok && r.reason).toContain('did not answer within 5 s while storing a secret');
    expect(clock.timerCount).toBe(0);
  });

  it('does not trust a keychain that reads back something else', async () => {
    const keytar = new FakeKeytar();
    keytar.getPassword = async () => 'something else';
    const r = await openSecretStore({ ...base(), keytarLoader: async () => keytar });
    expect(!r.ok && r.reason).toContain('the keychain returned a different value on read-back');
    expect(keytar.entries.size).toBe(0);
  });

  it('falls back to the file store only when allowed, and says so', async () => {
    const r = await openSecretStore({
      ...base(),
      allowFileStore: true,
      keytarLoader: async () => {
        throw new Error('no keytar');
      },
    });
    expect(r).toMatchObject({ ok: true, backend: 'file' });
    const status = describeSecretStorage(r);
    expect(status.backend).toBe('file');
    expect(status.warning).toBe(
      `Secrets are kept in an owner-only file (${join(dataDir, 'secrets', 'secrets.json')}), not in the OS keychain: ` +
        'the keychain did not work (The OS keychain module could not be loaded (no keytar)) and --allow-file-secret-store was given.',
    );
  });

  it('uses the file store without probing when it was chosen', async () => {
    let loaded = false;
    const r = await openSecretStore({
      ...base(),
      preferred: 'file',
      keytarLoader: async () => {
        loaded = true;
        return new FakeKeytar();
      },
    });
    expect(loaded).toBe(false);
    expect(r).toMatchObject({ ok: true, backend: 'file' });
    expect(r.ok && r.warning).toContain('the file store was chosen in settings');
  });

  it('reports storage as none before it is opened', () => {
    expect(describeSecretStorage(null)).toEqual({ backend: 'none', warning: null, problem: 'Secret storage has not been opened yet.' });
  });
});

describe('KeychainSecretStore', () => {
  it('loads keytar lazily, once, and retries a failed load', async () => {
    let loads = 0;
    const keytar = new FakeKeytar();
    const store = new KeychainSecretStore({
      service: 'svc',
      loader: async () => {
        loads += 1;
        if (loads === 1) throw new Error('not yet');
        return keytar;
      },
    });
    expect(loads).toBe(0);
    await expect(store.get('a')).rejects.toMatchObject({ code: 'keychain_unavailable' });
    await store.set('a', 'value-1');
    expect(await store.get('a')).toBe('value-1');
    expect(await store.delete('a')).toBe(true);
    expect(loads).toBe(2);
  });

  it('wraps keytar failures with a code and what to do', async () => {
    const keytar = new FakeKeytar();
    keytar.getPassword = async () => {
      throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY');
    };
    const error = await new KeychainSecretStore({ service: 'svc', loader: async () => keytar }).get('a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretStoreError);
    expect((error as SecretStoreError).code).toBe('keychain_failed');
    expect((error as SecretStoreError).message).toBe(
      'The OS keychain failed while reading a secret (Cannot autolaunch D-Bus without X11 $DISPLAY); is a Secret Service (e.g. gnome-keyring) running and unlocked?',
    );
  });
});

describe('accounts', () => {
  it('are named by control-plane origin', () => {
    expect(runnerAccount('https://rost.example/some/path?q=1')).toBe('runner:https://rost.example');
    expect(operatorAccount('http://127.0.0.1:7457/')).toBe('operator:http://127.0.0.1:7457');
    expect(() => runnerAccount('not a url')).toThrow('The control plane URL is not a valid URL.');
  });
});
