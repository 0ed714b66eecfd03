import { errorText } from '../../../../shared/errors';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { redactText } from '../../../../shared/redact';
import type { Clock, Logger } from '../../base/ports';
import { APPROVAL_REPLIES, IncomingSchema, type RequestId } from './protocol';

/**
 * One `codex app-server` process seen as a JSON-RPC peer over its stdio: requests with
 * ids and timeouts, notifications both ways, answers to the server's own requests.
 *
 * Listeners are subscriptions that return their own removal: a turn subscribes when it
 * starts and unsubscribes when it ends, so nothing of one turn hears the next (the seed
 * added an exit listener per race and never removed it, B15.9). When the process exits,
 * every pending request is rejected and every subscriber hears it once.
 */
export interface ServerRequest {
  id: RequestId;
  method: string;
  params: unknown;
}

export interface Subscriber {
  notification?(method: string, params: unknown): void;
  /** Return the result (or a promise of it) to answer the request; undefined lets others answer. */
  request?(request: ServerRequest): unknown;
  exit?(reason: string): void;
}

export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number | null,
    message: string,
  ) {
    super(`${method}: ${message}`);
  }
}

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<Clock['setTimeout']> | null;
}

const MAX_LINE_CHARS = 32 * 1024 * 1024;
const STDERR_LOG_CHARS = 2_000;

export class AppServerConnection {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly subscribers = new Set<Subscriber>();
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private overlong = false;
  private exitReason: string | null = null;
  readonly exited: Promise<string>;
  /** Lines that were not JSON-RPC messages (logged, ignored). */
  unreadable = 0;

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {
    this.exited = new Promise((resolve) => {
      const done = (reason: string) => {
        if (this.exitReason !== null) return;
        this.exitReason = reason;
        for (const [id, p] of this.pending) {
          if (p.timer !== null) this.clock.clearTimeout(p.timer);
          p.reject(new RpcError(p.method, null, `codex app-server exited (${reason})`));
          this.pending.delete(id);
        }
        for (const s of [...this.subscribers]) this.safely(() => s.exit?.(reason));
        resolve(reason);
      };
      child.once('exit', (code, signal) => done(code !== null ? `code ${code}` : (signal ?? 'signal')));
      child.once('error', (error) => done(error.message));
    });
    child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8').trim();
      // Per-unit tokens travel in thread configs; whatever codex prints is redacted by shape too.
      if (text) this.log.debug(`codex! ${redactText(text.slice(0, STDERR_LOG_CHARS))}`);
    });
    // A closed pipe (the server died) must not crash the runner.
    child.stdin.on('error', (error) => this.log.debug('codex app-server stdin closed', { error: error.message }));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitReason === null && this.child.exitCode === null && this.child.signalCode === null;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  subscribe(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  request(method: string, params: unknown, timeoutMs?: number): Promise<unknown> {
    if (!this.alive)
      return Promise.reject(new RpcError(method, null, this.exitReason ? `codex app-server exited (${this.exitReason})` : 'codex app-server is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? null
          : this.clock.setTimeout(() => {
              this.pending.delete(id);
              reject(new RpcError(method, null, `no answer within ${timeoutMs} ms`));
            }, timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      this.write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    });
  }

  notify(method: string, params?: unknown): void {
    this.write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** SIGTERM to the server; the caller escalates through the process tree if it lingers. */
  kill(): void {
    if (this.alive) this.child.kill('SIGTERM');
  }

  private write(message: Record<string, unknown>): void {
    if (!this.alive || this.child.stdin.destroyed) return;
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private read(chunk: Buffer): void {
    const text = this.decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.append(text.slice(start, nl));
      const line = this.partial;
      const skipped = this.overlong;
      this.partial = '';
      this.overlong = false;
      if (skipped) this.log.warn('codex app-server sent an overlong line; skipped it');
      else this.line(line.trim());
      start = nl + 1;
    }
    this.append(text.slice(start));
  }

  private append(piece: string): void {
    if (this.overlong) return;
    if (this.partial.length + piece.length > MAX_LINE_CHARS) {
      this.overlong = true;
      this.partial = '';
      return;
    }
    this.partial += piece;
  }

  private line(line: string): void {
    if (!line) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.unreadable++;
      this.log.debug(`codex? ${redactText(line.slice(0, 200))}`);
      return;
    }
    const parsed = IncomingSchema.safeParse(json);
    if (!parsed.success) {
      this.unreadable++;
      this.log.debug('codex app-server sent a message that is not JSON-RPC; ignored', { line: redactText(line.slice(0, 200)) });
      return;
    }
    const message = parsed.data;
    if (message.method === undefined) return this.settle(message.id, message.result, message.error);
    if (message.id !== undefined) return this.serverRequest({ id: message.id, method: message.method, params: message.params });
    for (const s of [...this.subscribers]) this.safely(() => s.notification?.(message.method, message.params));
  }

  private settle(id: RequestId, result: unknown, error: { code?: number | undefined; message?: string | undefined } | undefined): void {
    const p = this.pending.get(id);
    if (!p) {
      this.log.debug('codex app-server answered a request nobody waits for', { id });
      return;
    }
    this.pending.delete(id);
    if (p.timer !== null) this.clock.clearTimeout(p.timer);
    if (error) p.reject(new RpcError(p.method, error.code ?? null, error.message ?? 'app-server error'));
    else p.resolve(result ?? null);
  }

  private serverRequest(request: ServerRequest): void {
    let answer: unknown;
    for (const s of [...this.subscribers]) {
      answer = this.safely(() => s.request?.(request));
      if (answer !== undefined) break;
    }
    if (answer === undefined && Object.hasOwn(APPROVAL_REPLIES, request.method)) {
      this.log.warn('codex asked for approval outside a turn; declined', { method: request.method });
      answer = APPROVAL_REPLIES[request.method];
    }
    if (answer === undefined) {
      this.log.debug('codex app-server request this runner does not handle', { method: request.method });
      this.write({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `${request.method} is not handled by this client` } });
      return;
    }
    void Promise.resolve(answer).then(
      (result) => this.write({ jsonrpc: '2.0', id: request.id, result }),
      (error: unknown) => this.write({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message: errorText(error) } }),
    );
  }

  private safely<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      this.log.warn('codex app-server listener threw', { error: errorText(error) });
      return undefined;
    }
  }
}
