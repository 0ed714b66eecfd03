import { getMeta } from '../db/database';
import type { UnitRecord } from '../domain/units';
import type { Services } from '../services';

const SEATS = [
  { id: '7a1d3c52-3f0e-4f4b-9a57-0f3b8c2d9e11', name: 'Builder' },
  { id: 'c2b9f0a4-8d4e-4a8e-b1f5-6e2d7c9a3b20', name: 'Reviewer' },
];
const USERS = ['1b6f2e8d-5c3a-4f9e-8a7d-2c4b6e8f0a13', '9e4d2c1b-7a6f-4e3d-9c8b-5a4f3e2d1c05'];
const SESSIONS = ['3f8e2d1c-6b5a-4c9d-8e7f-1a2b3c4d5e6f', '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d', 'd4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a'];
const PROMPTS = [
  'Summarise what changed on the invoice export branch since the last review and list open questions.',
  'Check whether the CSV export handles multi-currency invoices and report what you find.',
  'Draft the release note for the invoice export feature in two short paragraphs.',
  'Look at the failing export test and explain the likely cause.',
  'List the remaining tasks of the current plan with a one-line status each.',
];

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

export interface TrickleState {
  enabled: boolean;
  min_ms: number;
  max_ms: number;
}

/**
 * A slow drip of realistic turn executions (one every 20–40 s by default) linked
 * to an in-progress request, so a demo runner has something to do. Off unless asked.
 */
export class Trickle {
  private timer: NodeJS.Timeout | null = null;
  private state: TrickleState = { enabled: false, min_ms: 20_000, max_ms: 40_000 };

  constructor(private readonly s: Services) {}

  get current(): TrickleState {
    return { ...this.state };
  }

  set(opts: { enabled: boolean; min_ms?: number; max_ms?: number }): TrickleState {
    this.stop();
    const min = opts.min_ms ?? this.state.min_ms;
    this.state = { enabled: opts.enabled, min_ms: min, max_ms: Math.max(min, opts.max_ms ?? this.state.max_ms) };
    if (opts.enabled) this.schedule();
    return this.current;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.state.enabled = false;
  }

  /** Enqueues one turn execution now. */
  once(): UnitRecord {
    const { ctx, forge, units } = this.s;
    const random = ctx.random;
    const preferred = getMeta(ctx.db, 'demo_trickle_request_id');
    const request =
      (preferred && forge.row(preferred)?.status === 'in_progress' ? forge.row(preferred) : undefined) ??
      forge.list(undefined, 100).find((r) => r.status === 'in_progress');
    const seat = pick(SEATS, random);
    return units.enqueue('turn_execution', {
      ...(request ? { tenant_id: forge.row(request.id)!.tenant_id, build_request_id: request.id } : {}),
      brain: 'claude',
      prompt: pick(PROMPTS, random),
      seat,
      charter_ref: { seat_id: seat.id },
      user_id: pick(USERS, random),
      session_id: pick(SESSIONS, random),
      aicos: { session_id: pick(SESSIONS, random) },
      timeout_ms: 600_000,
    });
  }

  private schedule(): void {
    const { min_ms, max_ms } = this.state;
    const delay = min_ms + Math.floor(this.s.ctx.random() * (max_ms - min_ms + 1));
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.state.enabled) return;
      this.once();
      this.schedule();
    }, delay);
    this.timer.unref();
  }
}
