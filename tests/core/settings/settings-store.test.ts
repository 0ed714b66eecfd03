import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../../shared/settings';
import { createConfSettingsBackend } from '../../../main/core/settings/conf-settings-backend';
import { CURRENT_SETTINGS_VERSION, migrateSettingsDocument } from '../../../main/core/settings/settings-migrations';
import { type SettingsBackend, createSettingsStore } from '../../../main/core/settings/settings-store';

class MemoryBackend implements SettingsBackend {
  writes: unknown[] = [];
  backups: unknown[] = [];
  failWrites = false;
  constructor(public data?: unknown) {}
  read(): unknown {
    if (this.data instanceof Error) throw this.data;
    return this.data === undefined ? undefined : structuredClone(this.data);
  }
  write(data: unknown): void {
    if (this.failWrites) throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    this.data = structuredClone(data);
    this.writes.push(this.data);
  }
  backup(): string | undefined {
    if (this.data === undefined) return undefined;
    this.backups.push(this.data instanceof Error ? 'unreadable' : structuredClone(this.data));
    return `/backups/${this.backups.length}`;
  }
}

describe('createSettingsStore (memory backend)', () => {
  it('starts from defaults without writing anything', () => {
    const backend = new MemoryBackend();
    const store = createSettingsStore({ backend, hostname: 'box' });
    expect(store.get().runnerName).toBe('headless-box');
    expect(store.warnings).toEqual([]);
    expect(backend.writes).toEqual([]);
  });

  it('persists only what was set, in a versioned envelope, and notifies on change', () => {
    const backend = new MemoryBackend();
    const store = createSettingsStore({ backend, hostname: 'box' });
    const seen: Settings[] = [];
    const off = store.onChange((s) => seen.push(s));
    expect(store.update({ heartbeatMs: 5000, runnerName: ' lab ' })).toMatchObject({ ok: true, value: { heartbeatMs: 5000, runnerName: 'lab' } });
    expect(backend.data).toEqual({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: { runnerName: 'lab', heartbeatMs: 5000 } });
    store.update({ heartbeatMs: 5000 }); // no change: no event
    off();
    store.update({ heartbeatMs: 6000 });
    expect(seen.map((s) => s.heartbeatMs)).toEqual([5000]);
    expect(createSettingsStore({ backend, hostname: 'box' }).get()).toMatchObject({ runnerName: 'lab', heartbeatMs: 6000 });
  });

  it('refuses an invalid patch with the field and message, and changes nothing', () => {
    const backend = new MemoryBackend();
    const store = createSettingsStore({ backend, hostname: 'box' });
    expect(store.update({ interactiveClaimMs: 10 })).toEqual({
      ok: false,
      error: { code: 'invalid_settings', field: 'interactiveClaimMs', message: 'Interactive claim interval (ms) must be an integer >= 250.' },
    });
    expect(store.update('nope')).toMatchObject({ ok: false, error: { code: 'invalid_settings', field: null } });
    expect(backend.writes).toEqual([]);
  });

  it('clears the optional tenant with an empty value', () => {
    const backend = new MemoryBackend();
    const store = createSettingsStore({ backend, hostname: 'box' });
    store.update({ expectedTenantId: 't-1' });
    expect(store.get().expectedTenantId).toBe('t-1');
    store.update({ expectedTenantId: '' });
    expect(store.get().expectedTenantId).toBeUndefined();
    expect(backend.data).toEqual({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: {} });
  });

  it('reports a failed write as data and keeps the previous value', () => {
    const backend = new MemoryBackend();
    const store = createSettingsStore({ backend, hostname: 'box' });
    backend.failWrites = true;
    expect(store.update({ maxSessions: 2 })).toEqual({
      ok: false,
      error: { code: 'settings_not_saved', field: null, message: 'Settings could not be saved (ENOSPC: disk full).' },
    });
    expect(store.get().maxSessions).toBe(1);
  });

  it('applies overrides on top without persisting them', () => {
    const backend = new MemoryBackend({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: { heartbeatMs: 5000, runnerName: 'stored' } });
    const store = createSettingsStore({ backend, hostname: 'box', overrides: { runnerName: 'from-env' } });
    expect(store.get()).toMatchObject({ runnerName: 'from-env', heartbeatMs: 5000 });
    expect(store.overriddenKeys()).toEqual(['runnerName']);
    store.update({ runnerName: 'typed-in-ui', maxSessions: 3 });
    expect(store.get()).toMatchObject({ runnerName: 'from-env', maxSessions: 3 });
    expect(backend.data).toEqual({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: { runnerName: 'typed-in-ui', heartbeatMs: 5000, maxSessions: 3 } });
  });

  it('migrates a v1 document (seed-style names), keeps a copy first, and saves v2', () => {
    const v1 = { schemaVersion: 1, settings: { name: 'old-name', account_alias: 'team', heartbeatMs: 4000 } };
    const backend = new MemoryBackend(v1);
    const store = createSettingsStore({ backend, hostname: 'box' });
    expect(store.get()).toMatchObject({ runnerName: 'old-name', modelAccountAlias: 'team', heartbeatMs: 4000 });
    expect(store.warnings).toEqual([]);
    expect(backend.backups).toEqual([v1]);
    expect(backend.data).toEqual({
      schemaVersion: CURRENT_SETTINGS_VERSION,
      settings: { runnerName: 'old-name', heartbeatMs: 4000, modelAccountAlias: 'team' },
    });
  });

  it('migrates a v2 document to v3 ("Run work on this machine" defaults to on; a stored choice is kept)', () => {
    const v2 = { schemaVersion: 2, settings: { runnerName: 'box-2', heartbeatMs: 4000 } };
    const backend = new MemoryBackend(v2);
    const store = createSettingsStore({ backend, hostname: 'box' });
    expect(store.get()).toMatchObject({ runnerName: 'box-2', runWork: true });
    expect(backend.backups).toEqual([v2]);
    expect(backend.data).toEqual({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: { runnerName: 'box-2', heartbeatMs: 4000 } });
    expect(migrateSettingsDocument({ schemaVersion: 2, settings: { runWork: false } })).toMatchObject({ ok: true, settings: { runWork: false } });
    expect(migrateSettingsDocument({ schemaVersion: 2, settings: { runWork: 'no' } })).toMatchObject({ ok: true, settings: {} });
    const off = createSettingsStore({ backend: new MemoryBackend({ schemaVersion: 3, settings: { runWork: false } }), hostname: 'box' });
    expect(off.get().runWork).toBe(false);
  });

  it('migrates a v3 document to v4: a plain-http control plane off this machine is dropped, the rest kept', () => {
    const v3 = { schemaVersion: 3, settings: { controlPlaneUrl: 'http://forge.example.com', runnerName: 'lab', runWork: false } };
    const backend = new MemoryBackend(v3);
    const store = createSettingsStore({ backend, hostname: 'box' });
    expect(store.get()).toMatchObject({
      controlPlaneUrl: 'http://127.0.0.1:7457',
      runnerName: 'lab',
      runWork: false,
      useOwnAgentConfig: false,
      runtimeEnvAllow: '',
    });
    expect(backend.backups).toEqual([v3]);
    expect(backend.data).toEqual({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: { runnerName: 'lab', runWork: false } });
    // An older file takes every step: a v2 file's plain-http URL off this machine is dropped too.
    expect(migrateSettingsDocument({ schemaVersion: 2, settings: { controlPlaneUrl: 'http://forge.example.com' } })).toMatchObject({ ok: true, settings: {} });
    const loopback = new MemoryBackend({ schemaVersion: 3, settings: { controlPlaneUrl: 'http://localhost:7457' } });
    expect(createSettingsStore({ backend: loopback, hostname: 'box' }).get().controlPlaneUrl).toBe('http://localhost:7457');
  });

  it('runs migrations in order as pure functions', () => {
    const steps = [(s: Record<string, unknown>) => ({ ...s, a: 1 }), (s: Record<string, unknown>) => ({ ...s, b: (s.a as number) + 1 })];
    expect(migrateSettingsDocument({ schemaVersion: 1, settings: {} }, steps)).toEqual({ ok: true, fromVersion: 1, settings: { a: 1, b: 2 } });
    expect(migrateSettingsDocument({ schemaVersion: 2, settings: { a: 5 } }, steps)).toEqual({ ok: true, fromVersion: 2, settings: { a: 5, b: 6 } });
    expect(migrateSettingsDocument({ schemaVersion: 1, settings: { name: 'n', runnerName: 'kept' } })).toMatchObject({ settings: { runnerName: 'kept' } });
    // v4 → v5: placeholder account states give way to the measured state; real text stays an override.
    expect(migrateSettingsDocument({ schemaVersion: 4, settings: { modelAccountState: ' OK ', maxSessions: 2 } })).toEqual({
      ok: true,
      fromVersion: 4,
      settings: { maxSessions: 2 },
    });
    expect(migrateSettingsDocument({ schemaVersion: 4, settings: { modelAccountState: 'unknown' } })).toEqual({ ok: true, fromVersion: 4, settings: {} });
    expect(migrateSettingsDocument({ schemaVersion: 4, settings: { modelAccountState: 'team plan, shared' } })).toMatchObject({
      settings: { modelAccountState: 'team plan, shared' },
    });
    // A file from before the step takes it too: a v2 placeholder is dropped on the way.
    expect(migrateSettingsDocument({ schemaVersion: 2, settings: { modelAccountState: 'available', runWork: false } })).toEqual({
      ok: true,
      fromVersion: 2,
      settings: { runWork: false },
    });
  });

  it.each([
    ['an unreadable file', new SyntaxError('Unexpected token')],
    ['a file that is not an envelope', { hello: 'world' }],
    ['a file from a newer version', { schemaVersion: 99, settings: { runnerName: 'future' } }],
    ['a file whose settings are not an object', { schemaVersion: 2, settings: [1, 2] }],
  ])('falls back to defaults on %s, keeping a copy and warning', (_name, data) => {
    const backend = new MemoryBackend(data);
    const warnings: string[] = [];
    const store = createSettingsStore({ backend, hostname: 'box', onWarning: (w) => warnings.push(w) });
    expect(store.get()).toEqual(createSettingsStore({ backend: new MemoryBackend(), hostname: 'box' }).get());
    expect(backend.backups).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Settings file .*a copy of the old file is at \/backups\/1\.$/);
    expect(store.warnings).toEqual(warnings);
  });

  it('keeps the valid fields of a partly invalid file and names the bad ones', () => {
    const backend = new MemoryBackend({ schemaVersion: 2, settings: { heartbeatMs: 10, runnerName: 'ok', bogus: true } });
    const store = createSettingsStore({ backend, hostname: 'box' });
    expect(store.get()).toMatchObject({ heartbeatMs: 30_000, runnerName: 'ok' });
    expect(store.warnings[0]).toContain('heartbeatMs, bogus (unknown); those are back to the default');
    expect(backend.data).toEqual({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: { runnerName: 'ok' } });
  });

  it('does not rewrite a bad file it could not copy', () => {
    const backend = new MemoryBackend({ schemaVersion: 2, settings: { heartbeatMs: 10 } });
    backend.backup = () => {
      throw Object.assign(new Error('read-only'), { code: 'EROFS' });
    };
    const store = createSettingsStore({ backend, hostname: 'box' });
    expect(store.get().heartbeatMs).toBe(30_000);
    expect(store.warnings[0]).toContain('no copy could be kept (EROFS: read-only), so the file was left as it is');
    expect(backend.writes).toEqual([]);
  });
});

describe('conf backend (real files)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rt-settings-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips settings through an owner-only JSON file', () => {
    const backend = createConfSettingsBackend({ dir });
    const store = createSettingsStore({ backend, hostname: 'box' });
    store.update({ runtime: 'claude' });
    expect(JSON.parse(readFileSync(backend.path, 'utf8'))).toEqual({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: { runtime: 'claude' } });
    expect(statSync(backend.path).mode & 0o777).toBe(0o600);
    expect(createSettingsStore({ backend: createConfSettingsBackend({ dir }), hostname: 'box' }).get().runtime).toBe('claude');
  });

  it('keeps a byte-for-byte copy of a corrupt file, uses defaults, and repairs the file', () => {
    const file = join(dir, 'settings.json');
    const corrupt = '{"schemaVersion": 2, "settings": {"runnerName": "half-writ';
    writeFileSync(file, corrupt);
    const backend = createConfSettingsBackend({ dir, now: () => new Date('2026-12-01T10:00:00.000Z') });
    const store = createSettingsStore({ backend, hostname: 'box' });
    expect(store.get().runnerName).toBe('headless-box');
    const copy = join(dir, 'settings.json.2026-12-01T10-00-00-000Z.bak');
    expect(store.warnings).toEqual([
      `Settings file ${file} could not be read (it is not valid JSON); every setting in it is back to its default, and a copy of the old file is at ${copy}.`,
    ]);
    expect(readFileSync(copy, 'utf8')).toBe(corrupt);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: {} });
    expect(readdirSync(dir).sort()).toEqual(['settings.json', 'settings.json.2026-12-01T10-00-00-000Z.bak']);
  });
});
