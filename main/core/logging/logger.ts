// The core's one structured logger: pino, redacted three ways, written to rotating
// files and to an in-memory ring the UI reads.
//
// Redaction: (1) `formatters.log`/`bindings` deep-redact every object (secret-named
// keys, secret-shaped strings, registered secrets); (2) pino's own `redact` paths
// censor well-known secret keys again at serialization; (3) `hooks.streamWrite` runs
// `redactText` over the finished JSON line, which covers the message itself. The file
// and the ring both receive only that final line.
//
// Files: see log-files.ts (pino-roll in this thread, no worker-thread transport), so
// `close()` ends the only handles the logger owns.
import pino from 'pino';
import type { LogEntry, LogLevel } from '../../../shared/contract';
import { MIN_KNOWN_SECRET_LENGTH, REDACTED, redactText, redactValue } from '../../../shared/redact';
import type { Clock, LogFeed, Logger } from '../base/ports';
import { type LogFiles, type RotationOptions, openLogFiles } from './log-files';
import { LogRing } from './log-ring';

export type { RotationOptions } from './log-files';

export interface LoggerOptions {
  /** Directory for log files; omit (or null) for no files at all (tests, previews). */
  dir?: string | null;
  level?: LogLevel;
  onEntry?: (entry: LogEntry) => void;
  ringSize?: number;
  rotation?: RotationOptions;
  /** File names are `<fileName>.<yyyy-MM-dd>.<n>.log`; default `runner-tray`. */
  fileName?: string;
  clock?: Pick<Clock, 'now'>;
}

export interface Logging extends LogFeed {
  /** The port the core logs through; `child(component)` names the part that logs. */
  readonly logger: Logger;
  /** The file being written now, or null in no-file mode or after a file error. */
  readonly file: string | null;
  /** Redacts this exact value (and its JSON/URL encodings) from every later line. */
  addSecret(secret: string): void;
  /** As addSecret, until the returned release is called (a unit's MCP token, for its turn). */
  addTurnSecret(secret: string): () => void;
  setLevel(level: LogLevel): void;
  flush(): Promise<void>;
  /** Flushes, closes the file and drops listeners; later log calls reach the ring only. */
  close(): Promise<void>;
}

const SECRET_FIELDS = [
  'runner_secret',
  'runnerSecret',
  'secret',
  'password',
  'token',
  'access_token',
  'refresh_token',
  'accessToken',
  'refreshToken',
  'api_key',
  'apiKey',
  'authorization',
  'Authorization',
  'cookie',
  'client_secret',
];
const REDACT_PATHS = SECRET_FIELDS.flatMap((k) => [`data.${k}`, `data.*.${k}`, `data.headers.${k}`]);
const LEVELS: Record<string, LogLevel> = { trace: 'debug', debug: 'debug', info: 'info', warn: 'warn', error: 'error', fatal: 'error' };
const MAX_RING_MSG = 4000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function entryFromLine(line: string, seq: number): LogEntry | null {
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRecord(obj)) return null;
  const level = LEVELS[String(obj.level)] ?? 'info';
  const msg = typeof obj.msg === 'string' ? obj.msg : '';
  const entry: LogEntry = {
    seq,
    time: typeof obj.time === 'string' ? obj.time : new Date().toISOString(),
    level,
    msg: msg.length > MAX_RING_MSG ? `${msg.slice(0, MAX_RING_MSG)}…` : msg,
  };
  if (typeof obj.component === 'string') entry.component = obj.component;
  if (isRecord(obj.data)) entry.data = obj.data;
  return entry;
}

/** The secrets the logger blanks out: the known ones for good, a turn's own until the turn releases them. */
class KnownSecrets {
  private readonly known = new Set<string>();
  private readonly temporary = new Map<string, number>();
  /** Every secret to blank out now (rebuilt on each change, read on every line). */
  list: string[] = [];

  add(secret: unknown): void {
    if (typeof secret !== 'string' || secret.length < MIN_KNOWN_SECRET_LENGTH || this.known.has(secret)) return;
    this.known.add(secret);
    this.rebuild();
  }

  /** Adds a turn's secret, counted, and answers the function that releases this hold on it. */
  addTemporary(secret: unknown): () => void {
    if (typeof secret !== 'string' || secret.length < MIN_KNOWN_SECRET_LENGTH || this.known.has(secret)) return () => undefined;
    this.temporary.set(secret, (this.temporary.get(secret) ?? 0) + 1);
    this.rebuild();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.temporary.get(secret) ?? 1) - 1;
      if (left > 0) this.temporary.set(secret, left);
      else this.temporary.delete(secret);
      this.rebuild();
    };
  }

  private rebuild(): void {
    this.list = [...this.known, ...this.temporary.keys()];
  }
}

/** The ring's writer: parses each written line into a numbered entry, keeps it and tells `onEntry`. */
function ringWriter(ring: LogRing, onEntry: LoggerOptions['onEntry']): (line: string) => void {
  let seq = 0;
  return (line) => {
    const entry = entryFromLine(line, seq);
    if (!entry) return;
    seq += 1;
    ring.push(entry);
    try {
      onEntry?.(entry);
    } catch {
      // the callback's failure is not the logger's
    }
  };
}

/** Opens the log files in `options.dir`, or answers null (saying why in the ring) when there are none. */
async function openFiles(options: LoggerOptions, notice: (msg: string) => void): Promise<LogFiles | null> {
  if (!options.dir) return null;
  try {
    return await openLogFiles({
      dir: options.dir,
      baseName: options.fileName ?? 'runner-tray',
      ...(options.rotation ? { rotation: options.rotation } : {}),
      // An unwritable disk must not stop the runner: say so once in the ring, and go on without files.
      onError: (code) => notice(`log file writing stopped (${code})`),
    });
  } catch (error) {
    notice(`log files are off: ${options.dir} could not be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return null;
  }
}

/** The pino root: JSON lines with the clock's time, secrets redacted by field and by value. */
function rootLogger(options: LoggerOptions, clock: Pick<Clock, 'now'>, secrets: KnownSecrets, write: (line: string) => void): pino.Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { pid: process.pid },
      messageKey: 'msg',
      timestamp: () => `,"time":"${new Date(clock.now()).toISOString()}"`,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      formatters: {
        level: (label) => ({ level: LEVELS[label] ?? label }),
        bindings: (bindings) => redactValue(bindings, secrets.list) as Record<string, unknown>,
        log: (obj) => redactValue(obj, secrets.list) as Record<string, unknown>,
      },
      hooks: { streamWrite: (line) => redactText(line, secrets.list) },
    },
    { write },
  );
}

/** The core's Logger over a pino logger; children hang off the root, one per component name. */
function wrapLogger(root: pino.Logger, children: Map<string, pino.Logger>, p: pino.Logger, component: string | undefined): Logger {
  const at =
    (level: LogLevel) =>
    (msg: string, data?: Record<string, unknown>): void => {
      if (data === undefined) p[level](msg);
      else p[level]({ data }, msg);
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (name: string) => {
      // Children hang off the root so a nested component is one binding, `parent.child`.
      const full = component ? `${component}.${name}` : name;
      let c = children.get(full);
      if (!c) {
        c = root.child({ component: full });
        children.set(full, c);
      }
      return wrapLogger(root, children, c, full);
    },
  };
}

export async function createLogger(options: LoggerOptions = {}): Promise<Logging> {
  const clock = options.clock ?? { now: () => Date.now() };
  const ring = new LogRing(options.ringSize ?? 500);
  const secrets = new KnownSecrets();
  let closed = false;

  const pushToRing = ringWriter(ring, options.onEntry);
  const notice = (msg: string): void => pushToRing(JSON.stringify({ level: 'warn', time: new Date(clock.now()).toISOString(), component: 'logging', msg }));
  let files = await openFiles(options, notice);

  const root = rootLogger(options, clock, secrets, (line) => {
    files?.write(line);
    pushToRing(line);
  });
  const children = new Map<string, pino.Logger>();

  return {
    logger: wrapLogger(root, children, root, undefined),
    get file() {
      return files?.file ?? null;
    },
    recent: (limit) => ring.recent(limit),
    subscribe: (listener) => ring.subscribe(listener),
    addSecret: (secret) => secrets.add(secret),
    addTurnSecret: (secret) => secrets.addTemporary(secret),
    setLevel(level) {
      root.level = level;
      for (const c of children.values()) c.level = level;
    },
    // File writes are synchronous (log-files.ts): once a log call returns, its line is in the file.
    flush: async () => {},
    async close() {
      if (closed) return;
      closed = true;
      ring.clearListeners();
      const f = files;
      files = null;
      await f?.close();
    },
  };
}
