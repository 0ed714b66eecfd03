import { z } from 'zod';

/** A fault rule from the admin API. Rates are probabilities in [0, 1]. */
export const FaultInputSchema = z.strictObject({
  // Path glob: a star matches any run of characters, e.g. "/api/runner/" + star, or a star in place of a unit id.
  route: z.string().min(1).max(300).regex(/^[/*]/, 'must start with / or *'),
  method: z.enum(['GET', 'POST', 'PATCH', 'DELETE', 'PUT']).optional(),
  latency_ms: z.number().int().min(0).max(120_000).optional(),
  error: z
    .strictObject({
      rate: z.number().min(0).max(1),
      status: z.number().int().min(400).max(599),
      body: z.unknown().optional(),
    })
    .optional(),
  drop: z
    .strictObject({
      rate: z.number().min(0).max(1),
      /** `after`: the handler runs (its effect happens) and then the socket is destroyed instead of answering. */
      when: z.enum(['before', 'after']).default('before'),
    })
    .optional(),
  malformed: z
    .strictObject({
      rate: z.number().min(0).max(1),
      /** `empty`: a 2xx with a zero-length body (the seed's Sechroom client dies on one). */
      kind: z.enum(['invalid_json', 'wrong_shape', 'empty']),
    })
    .optional(),
  /** Remove the rule after it matched this many requests. */
  remaining: z.number().int().positive().optional(),
});
export type FaultInput = z.input<typeof FaultInputSchema>;

export interface Fault extends z.infer<typeof FaultInputSchema> {
  id: string;
  hits: number;
}

export interface FaultPlan {
  latencyMs: number;
  dropBefore: boolean;
  dropAfter: boolean;
  error?: { status: number; body?: unknown };
  malformed?: 'invalid_json' | 'wrong_shape' | 'empty';
  faultIds: string[];
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** Faults are in memory only: a restart clears them. The admin API itself is never faulted. */
export class FaultInjector {
  private faults: Array<Fault & { regex: RegExp }> = [];
  private counter = 0;

  constructor(private readonly random: () => number) {}

  add(input: FaultInput): Fault {
    const parsed = FaultInputSchema.parse(input);
    const fault = { ...parsed, id: `fault-${++this.counter}`, hits: 0 };
    this.faults.push({ ...fault, regex: globToRegExp(parsed.route) });
    return fault;
  }

  list(): Fault[] {
    return this.faults.map(({ regex: _regex, ...fault }) => ({ ...fault }));
  }

  remove(id?: string): number {
    const before = this.faults.length;
    this.faults = id ? this.faults.filter((f) => f.id !== id) : [];
    return before - this.faults.length;
  }

  plan(method: string, path: string): FaultPlan | null {
    if (path.startsWith('/_emulator')) return null;
    const matching = this.faults.filter((f) => (!f.method || f.method === method) && f.regex.test(path));
    if (!matching.length) return null;
    const plan: FaultPlan = { latencyMs: 0, dropBefore: false, dropAfter: false, faultIds: [] };
    for (const fault of matching) {
      fault.hits += 1;
      plan.faultIds.push(fault.id);
      plan.latencyMs += fault.latency_ms ?? 0;
      if (fault.drop && this.roll(fault.drop.rate)) {
        if (fault.drop.when === 'after') plan.dropAfter = true;
        else plan.dropBefore = true;
      }
      if (!plan.error && fault.error && this.roll(fault.error.rate)) plan.error = { status: fault.error.status, body: fault.error.body };
      if (!plan.malformed && fault.malformed && this.roll(fault.malformed.rate)) plan.malformed = fault.malformed.kind;
      if (fault.remaining !== undefined && fault.hits >= fault.remaining) this.remove(fault.id);
    }
    return plan;
  }

  private roll(rate: number): boolean {
    return rate >= 1 || (rate > 0 && this.random() < rate);
  }
}
