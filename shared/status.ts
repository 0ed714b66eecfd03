import { z } from 'zod';

/**
 * The one runner status model the window, the tray and the headless terminal all show.
 * Each state carries a one-line reason written for the operator.
 */
const base = { reason: z.string() };

/**
 * What went wrong with the control plane, in the words the window uses: it could not be
 * reached, it timed out, it failed (5xx), it refused the request (4xx), or it answered
 * something that does not fit the protocol.
 */
export const ControlPlaneFaultSchema = z.enum(['unreachable', 'timeout', 'server', 'refused', 'malformed']);
export type ControlPlaneFault = z.infer<typeof ControlPlaneFaultSchema>;

export const RunnerStatusSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('unpaired'), ...base }),
  z.object({ state: z.literal('pairing'), ...base }),
  z.object({
    state: z.literal('idle'),
    ...base,
    /** Why this idle profile claims nothing although nobody paused it (no runtime is ready): shown in amber, not green. */
    held: z.string().optional(),
  }),
  z.object({
    state: z.literal('working'),
    ...base,
    active: z.number().int().min(0),
    limit: z.number().int().min(1),
    /** Turns run on while the control plane has a problem: which one (and when the next try is). */
    fault: ControlPlaneFaultSchema.optional(),
    retryAt: z.string().optional(),
  }),
  z.object({
    state: z.literal('paused'),
    ...base,
    until: z.string().nullable(),
    /** When the pause began and who paused (absent from hosts that do not keep it). */
    at: z.string().optional(),
    by: z.literal('you').optional(),
    note: z.string().nullable().optional(),
  }),
  z.object({
    state: z.literal('draining'),
    ...base,
    remaining: z.number().int().min(0),
    /** When a quit stops waiting and cancels what still runs (ISO). */
    deadline: z.string().optional(),
    /** `now`: the running turns are being canceled. */
    mode: z.enum(['after-turns', 'now']).optional(),
  }),
  z.object({ state: z.literal('offline'), ...base, retryAt: z.string(), fault: ControlPlaneFaultSchema.optional() }),
  z.object({ state: z.literal('revoked'), ...base }),
  z.object({ state: z.literal('error'), ...base }),
]);
export type RunnerStatus = z.infer<typeof RunnerStatusSchema>;
export type RunnerState = RunnerStatus['state'];

/** The five looks of the tray icon. */
export type TrayIconKind = 'unpaired' | 'idle' | 'working' | 'paused' | 'error';

export function trayIconFor(status: RunnerStatus): TrayIconKind {
  switch (status.state) {
    case 'unpaired':
    case 'pairing':
    case 'revoked':
      return 'unpaired';
    case 'idle':
      return status.held ? 'paused' : 'idle';
    case 'working':
    case 'draining':
      return 'working';
    case 'paused':
      return 'paused';
    case 'offline':
    case 'error':
      return 'error';
  }
}

function clock(iso: string): string {
  const d = new Date(iso);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** The fault as a clause after "Working 1 of 1 · ". */
export const FAULT_CLAUSE: Record<ControlPlaneFault, string> = {
  unreachable: 'cannot reach the control plane',
  timeout: 'the control plane is not answering in time',
  server: 'the control plane is failing (server error)',
  refused: 'the control plane refused a request',
  malformed: 'the control plane answers nonsense',
};

/** The fault as the headline of an offline runner. */
const FAULT_HEADLINE: Record<ControlPlaneFault, string> = {
  unreachable: 'Cannot reach the control plane',
  timeout: 'Control plane timed out',
  server: 'Control plane error',
  refused: 'Control plane refused the request',
  malformed: 'Control plane answers nonsense',
};

/** "Paused by you at 14:02 · resumes 14:32"; older hosts without `at` give "Paused until 14:32". */
function pausedLine(status: Extract<RunnerStatus, { state: 'paused' }>, clockOf: (iso: string) => string): string {
  if (!status.at) return status.until ? `Paused until ${clockOf(status.until)}` : 'Paused';
  const who = status.by === 'you' ? ' by you' : '';
  return `Paused${who} at ${clockOf(status.at)}${status.until ? ` · resumes ${clockOf(status.until)}` : ''}`;
}

/** "Stopping: waiting for 1 turn (up to 5 min)", as the quit policy drains. */
function drainingLine(status: Extract<RunnerStatus, { state: 'draining' }>, now: number): string {
  const turns = `${status.remaining} turn${status.remaining === 1 ? '' : 's'}`;
  if (status.remaining === 0) return 'Stopping…';
  if (status.mode === 'now') return `Stopping now: canceling ${turns}`;
  if (!status.deadline) return `Finishing ${status.remaining} running turn${status.remaining === 1 ? '' : 's'}`;
  return `Stopping: waiting for ${turns} (up to ${duration(Date.parse(status.deadline) - now)})`;
}

/** A wait in the largest unit that reads well: "45 s", "5 min", "2 h 10 min". */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  // Whole seconds down before the minutes up: a clock read a moment early must not turn a 5 min drain into "6 min".
  const minutes = Math.ceil(Math.floor(ms / 1000) / 60);
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/**
 * The status in words, as the top of the dashboard and the tray tooltip say it. The
 * window passes its own locale-aware `clockOf` so every time it shows reads alike.
 */
export function statusLine(status: RunnerStatus, now: number = Date.now(), clockOf: (iso: string) => string = clock): string {
  switch (status.state) {
    case 'unpaired':
      return 'Not paired';
    case 'pairing':
      return 'Pairing…';
    case 'idle':
      return status.held ? 'Idle · not claiming' : 'Idle';
    case 'working':
      return `Working ${status.active} of ${status.limit}${status.fault ? ` · ${FAULT_CLAUSE[status.fault]}` : ''}`;
    case 'paused':
      return pausedLine(status, clockOf);
    case 'draining':
      return drainingLine(status, now);
    case 'offline': {
      const seconds = Math.max(0, Math.ceil((Date.parse(status.retryAt) - now) / 1000));
      return `${status.fault ? FAULT_HEADLINE[status.fault] : 'Offline'}, retrying in ${seconds} s`;
    }
    case 'revoked':
      return 'Revoked — pair again';
    case 'error':
      return 'Error';
  }
}
