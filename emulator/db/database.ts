import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { DATA_TABLES, SCHEMA_SQL, SCHEMA_VERSION } from './schema';

export type Db = Database.Database;

export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  if (file !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA_SQL);
  const version = db.prepare('SELECT value FROM meta WHERE key = ?').get('schema_version') as { value: string } | undefined;
  if (!version) db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('schema_version', String(SCHEMA_VERSION));
  return db;
}

export function wipeDatabase(db: Db): void {
  db.transaction(() => {
    for (const table of DATA_TABLES) db.exec(`DELETE FROM ${table}`);
    db.prepare("DELETE FROM meta WHERE key <> 'schema_version'").run();
  })();
}

export function getMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** Monotonic insertion order for a table that keeps one (ties on timestamps are common in tests). */
export function nextSeq(db: Db, table: string): number {
  const row = db.prepare(`SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM ${table}`).get() as { n: number };
  return row.n;
}

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text == null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
