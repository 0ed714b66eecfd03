import type { EmulatorContext } from '../../context';
import type { SechroomAdmin } from '../admin/sechroom-admin';
import { DEMO_TASKS, seedSechroomDemo } from './demo-seed';

export interface SechroomTrickleState {
  enabled: boolean;
  min_ms: number;
  max_ms: number;
}

const FOLLOW_UPS = [
  'Tidy the export service after review',
  'Add a regression test for rounding in totals',
  'Document the export format in docs/billing.md',
  'Handle credit notes as negative rows',
  'Speed up the export of 10k-line invoices',
];

/** A slow drip of Work Layer tasks (one every 20–40 s by default) into the demo work plan. Off unless asked. */
export class SechroomTrickle {
  private timer: NodeJS.Timeout | null = null;
  private state: SechroomTrickleState = { enabled: false, min_ms: 20_000, max_ms: 40_000 };
  private admin: SechroomAdmin | null = null;
  private n = 0;

  constructor(private readonly ctx: EmulatorContext) {}

  attach(admin: SechroomAdmin): void {
    this.admin = admin;
  }

  get current(): SechroomTrickleState {
    return { ...this.state };
  }

  set(opts: { enabled: boolean; min_ms?: number; max_ms?: number }): SechroomTrickleState {
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

  /** Adds one task to the demo plan now (seeding the demo brief first if needed). */
  once() {
    const admin = this.admin!;
    const demo = seedSechroomDemo(admin);
    const base = DEMO_TASKS[Math.floor(this.ctx.random() * DEMO_TASKS.length)]!;
    const title = FOLLOW_UPS[this.n++ % FOLLOW_UPS.length]!;
    return admin.createTask({ ...base, title, decomposition_id: demo.decomposition_id, context_pack: demo.context_pack });
  }

  private schedule(): void {
    const { min_ms, max_ms } = this.state;
    const delay = min_ms + Math.floor(this.ctx.random() * (max_ms - min_ms + 1));
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.state.enabled) return;
      this.once();
      this.schedule();
    }, delay);
    this.timer.unref();
  }
}
