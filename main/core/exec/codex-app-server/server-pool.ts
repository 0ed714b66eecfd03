import { createHash } from 'node:crypto';
import type { Clock, Logger } from '../../base/ports';
import { terminateTree } from '../process-tree';
import { AppServerConnection } from './connection';
import { spawnAppServer, type AppServerSpawnSpec, type SpawnAppServer } from './spawn';

/**
 * Long-lived `codex app-server` processes, one per profile (the program and the environment
 * it runs with, CODEX_HOME included) and working folder. A turn acquires the live one; a
 * server that died between turns is replaced by a fresh one (initialize, then the
 * `initialized` notification the real codex expects). Per-unit things (the MCP server and
 * its token, the turn's folder) travel in thread/start, so units share the process.
 */
export interface AppServerPoolOptions {
  log: Logger;
  clock: Clock;
  spawn?: SpawnAppServer;
  clientVersion: string;
  /** How long initialize may take (default 30 s). */
  initTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace when a server is stopped (default 1500 ms). */
  killGraceMs?: number;
}

interface Entry {
  key: string;
  connection: AppServerConnection;
  ready: Promise<AppServerConnection>;
}

export class AppServerPool {
  private readonly entries = new Map<string, Entry>();
  /** Servers whose start waits for their spec's beforeStart (one per key). */
  private readonly preparing = new Map<string, Promise<AppServerConnection>>();
  private readonly spawn: SpawnAppServer;
  private readonly log: Logger;
  /** How many servers were started, respawns included. */
  spawned = 0;

  constructor(private readonly options: AppServerPoolOptions) {
    this.spawn = options.spawn ?? spawnAppServer;
    this.log = options.log.child('codex-app-server');
  }

  static keyOf(spec: AppServerSpawnSpec): string {
    const env = Object.entries(spec.env)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return createHash('sha256')
      .update(JSON.stringify([spec.command, spec.args, spec.cwd, env]))
      .digest('hex')
      .slice(0, 16);
  }

  /** A live, initialized server for this profile and folder. */
  async acquire(spec: AppServerSpawnSpec): Promise<AppServerConnection> {
    const key = AppServerPool.keyOf(spec);
    const entry = this.entries.get(key);
    if (entry) {
      if (entry.connection.alive) return entry.ready;
      this.log.warn('codex app-server died between tasks — respawning', { pid: entry.connection.pid });
      this.entries.delete(key);
    }
    const before = spec.beforeStart;
    if (!before) return this.start(key, spec).ready;
    let pending = this.preparing.get(key);
    if (!pending) {
      pending = (async () => {
        await before();
        return this.start(key, spec).ready;
      })().finally(() => this.preparing.delete(key));
      this.preparing.set(key, pending);
    }
    return pending;
  }

  /** Stops one server's whole process tree (cancel that did not stop in time, or a broken server). */
  async kill(connection: AppServerConnection): Promise<void> {
    for (const [key, entry] of this.entries) if (entry.connection === connection) this.entries.delete(key);
    const pid = connection.pid;
    if (pid === undefined) return;
    const result = await terminateTree(pid, { graceMs: this.options.killGraceMs ?? 1_500, clock: this.options.clock, rootReaped: !connection.alive });
    if (result.survivors.length > 0) this.log.error('codex app-server processes survived SIGKILL', { pid, survivors: result.survivors });
  }

  async stopAll(): Promise<void> {
    const all = [...this.entries.values()].map((e) => e.connection);
    await Promise.all(all.map((c) => this.kill(c)));
  }

  get size(): number {
    return this.entries.size;
  }

  private start(key: string, spec: AppServerSpawnSpec): Entry {
    const child = this.spawn(spec);
    this.spawned++;
    const connection = new AppServerConnection(child, this.log, this.options.clock);
    if (spec.afterExit) void connection.exited.then(spec.afterExit, spec.afterExit);
    const ready = (async () => {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', reject);
      });
      this.log.info('codex app-server started', { pid: connection.pid });
      void connection.exited.then((reason) => this.log.info('codex app-server exited', { pid: connection.pid, reason }));
      await connection.request(
        'initialize',
        {
          clientInfo: { name: 'runner-tray', title: 'Runner Tray', version: this.options.clientVersion },
          // dynamicTools on thread/start is behind the experimental API.
          capabilities: { experimentalApi: true, requestAttestation: false },
        },
        this.options.initTimeoutMs ?? 30_000,
      );
      connection.notify('initialized');
      return connection;
    })();
    const entry: Entry = { key, connection, ready };
    this.entries.set(key, entry);
    // A server that never got ready is not kept: the next turn starts another.
    ready.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      void this.kill(connection);
    });
    return entry;
  }
}
