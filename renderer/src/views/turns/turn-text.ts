import type { TurnPhase, TurnRow, TurnView } from '../../../../shared/turns';
import { RUNTIME_NAMES } from '../../../../shared/runtimes';
import { formatDuration, shortId } from '../format';

/** Words for a turn's facts. Seat names and summaries come from the control plane: text only. */
export const PHASE_LABELS: Readonly<Record<TurnPhase, string>> = {
  starting: 'Starting',
  running: 'Running',
  canceling: 'Canceling',
  reporting: 'Reporting',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceled: 'Canceled',
};

export const LEASE_LABELS = {
  active: 'lease held',
  pause_requested: 'pause requested',
  cancel_requested: 'cancel requested',
} as const;

export function seatLabel(turn: TurnRow | TurnView): string {
  if (turn.plane === 'sechroom') return turn.title ?? 'Sechroom task';
  if (turn.seat?.name) return turn.seat.name;
  if (turn.seat) return `Seat ${shortId(turn.seat.id)}`;
  return turn.kind === 'work_order' ? 'Work order' : 'Turn';
}

const SECHROOM_LEASE: Readonly<Record<NonNullable<TurnView['leaseState']>, string>> = {
  held: 'lease held',
  cancel_requested: 'cancel requested',
  ended: 'lease ended',
  left_to_expire: 'lease left to expire',
  completed: 'lease completed',
};

/** A Sechroom task's own facts: the verdict, the last lifecycle signal (progress), the lease. */
export function sechroomFacts(turn: TurnRow | TurnView): string[] {
  if (turn.plane !== 'sechroom') return [];
  return [
    ...(turn.verdict ? [`verdict ${turn.verdict}`] : []),
    ...(turn.lifecyclePhase ? [`phase ${turn.lifecyclePhase}`] : []),
    ...(turn.leaseState ? [SECHROOM_LEASE[turn.leaseState]] : []),
  ];
}

export function runtimeLabel(turn: TurnView): string {
  return turn.runtime ? RUNTIME_NAMES[turn.runtime].label : 'no runtime yet';
}

export function elapsed(turn: TurnRow | TurnView, now: number): string {
  const end = turn.endedAt ? Date.parse(turn.endedAt) : now;
  return formatDuration(end - Date.parse(turn.startedAt));
}

export function tokensText(turn: TurnView): string | null {
  return turn.tokens ? `${turn.tokens.input.toLocaleString()} in · ${turn.tokens.output.toLocaleString()} out` : null;
}

/**
 * Where a finished turn's result is, in words, and how much it matters: a waiting,
 * refused or late result is never shown as a plain "Succeeded".
 */
export function deliveryText(turn: TurnRow | TurnView, now: number): { text: string; tone: 'quiet' | 'warn' | 'error' } | null {
  const d = turn.delivery;
  if (!d) return null;
  switch (d.state) {
    case 'sending':
      return { text: 'Result sending…', tone: 'quiet' };
    case 'waiting':
      return {
        text: `Result not delivered yet: ${d.attempts} ${d.attempts === 1 ? 'try' : 'tries'}, waiting ${formatDuration(now - Date.parse(d.since))}`,
        tone: 'warn',
      };
    case 'refused':
      return { text: `Result refused by the control plane: ${d.reason ?? 'no reason given'}`, tone: 'error' };
    case 'delivered':
      return d.late
        ? { text: `Result arrived late: ${d.reason ?? 'the control plane had already ended the unit'}`, tone: 'warn' }
        : { text: 'Result delivered', tone: 'quiet' };
  }
}
