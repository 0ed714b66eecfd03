import { errorText } from '../../../shared/errors';
import type { HostEvent } from '../../../shared/contract';
import { redactText } from '../../../shared/redact';
import type { RunnerState } from '../../../shared/status';
import { backoffDelay, type BackoffPolicy } from '../../core/base/backoff';
import type { Clock } from '../../core/base/ports';
import type { FetchLike } from '../../core/connectors/http-json';
import { isStorageReason } from '../../core/sessions/storage-health';

export type WebhookKind = 'usage-limited' | 'usage-recovered' | 'auth-expired' | 'breaker-open' | 'storage-red' | 'crash-restart';

/** What a webhook receives: Slack's `{ text }`, and the same fact for programs. */
export interface WebhookBody {
  text: string;
  runner_tray: { kind: WebhookKind; profile: string | null; host: string; at: string };
}

export interface WebhookDeps {
  url: string;
  /** This machine's name, as the message names it. */
  host: string;
  clock: Clock;
  fetch: FetchLike;
  /** A line for the operator (failures; never the URL beyond its origin). */
  log(line: string): void;
  random?: () => number;
  /** Values that must never leave in a body (the runner secret, tokens). */
  knownSecrets?: () => readonly string[];
  /** At most one message per kind and profile in this window (default a minute). */
  coalesceMs?: number;
  /** Tries per message (default 4), spaced by `backoff`. */
  attempts?: number;
  backoff?: BackoffPolicy;
  timeoutMs?: number;
}

const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, capMs: 30_000 };

/**
 * Notifications of a headless host to a webhook (Slack-compatible): usage limited and
 * recovered, credentials refused, the runtime breaker open, the data folder refusing
 * writes, a restart after a crash. Read off the core's event batches; each message is
 * sent in the background with bounded retries, so a slow or failing webhook never holds
 * the runner; a flood is cut to one message per kind and profile per minute.
 */
export class WebhookNotifier {
  private readonly lastSent = new Map<string, number>();
  private readonly states = new Map<string, RunnerState | 'storage'>();
  private readonly pending = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly deps: WebhookDeps) {}

  get origin(): string {
    return new URL(this.deps.url).origin;
  }

  onEvents(batch: readonly HostEvent[]): void {
    for (const event of batch) {
      if (event.event === 'usage:notice') {
        const n = event.payload;
        if (n.kind === 'limited') {
          const until = n.until === null ? '' : ` until ${new Date(n.until).toISOString()}`;
          this.notify('usage-limited', null, `the ${n.account} account reached its usage limit${until}; no claims for it meanwhile`);
        } else if (n.kind === 'recovered') this.notify('usage-recovered', null, `the ${n.account} account has usage again; claiming resumed`);
      } else if (event.event === 'runner:notice' && event.payload.kind === 'runtime-paused') {
        this.notify('breaker-open', null, `runtime breaker open: ${event.payload.message}`);
      } else if (event.event === 'runner:status') {
        this.status(event.payload.profile ?? 'default', event.payload.state, event.payload.reason);
      }
    }
  }

  /** Sends one message (unless one of its kind and profile went out within the window). */
  notify(kind: WebhookKind, profile: string | null, what: string): void {
    if (this.closed) return;
    const key = `${kind}\u0000${profile ?? ''}`;
    const now = this.deps.clock.now();
    const last = this.lastSent.get(key);
    if (last !== undefined && now - last < (this.deps.coalesceMs ?? 60_000)) return;
    this.lastSent.set(key, now);
    const secrets = this.deps.knownSecrets?.() ?? [];
    const text = redactText(`Runner Tray on ${this.deps.host}${profile ? ` (profile ${profile})` : ''}: ${what}`, secrets);
    const body: WebhookBody = { text, runner_tray: { kind, profile, host: this.deps.host, at: new Date(now).toISOString() } };
    const sending = this.send(JSON.stringify(body)).finally(() => this.pending.delete(sending));
    this.pending.add(sending);
  }

  /** Resolves once every message under way has been sent or given up. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  close(): void {
    this.closed = true;
  }

  private status(profile: string, state: RunnerState, reason: string): void {
    const now = state === 'error' && isStorageReason(reason) ? 'storage' : state;
    const before = this.states.get(profile);
    this.states.set(profile, now);
    if (before === now) return;
    if (now === 'revoked') this.notify('auth-expired', profile, `the control plane refused this runner's credentials: ${reason}`);
    if (now === 'storage') this.notify('storage-red', profile, reason);
  }

  private async send(body: string): Promise<void> {
    const attempts = this.deps.attempts ?? 4;
    for (let attempt = 0; attempt < attempts; attempt++) {
      let problem: string;
      try {
        const response = await this.deps.fetch(this.deps.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(this.deps.timeoutMs ?? 10_000),
          redirect: 'error',
        });
        await response.text().catch(() => '');
        if (response.status >= 200 && response.status < 300) return;
        problem = `answered ${response.status}`;
        // A 4xx other than 429 will not change by trying again.
        if (response.status < 500 && response.status !== 429) attempt = attempts;
      } catch (error) {
        problem = redactText(errorText(error)).replaceAll(this.deps.url, this.origin);
      }
      if (this.closed || attempt >= attempts - 1) {
        this.deps.log(`webhook ${this.origin}: ${problem}; message dropped`);
        return;
      }
      await this.wait(backoffDelay(attempt, this.deps.backoff ?? DEFAULT_BACKOFF, this.deps.random));
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => this.deps.clock.setTimeout(resolve, ms));
  }
}
