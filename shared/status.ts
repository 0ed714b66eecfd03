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
  z.object({ state: z.literal('idle'), ...base }),
  z.object({
    state: z.literal('working'),
    ...base,
    active: z.number().int().min(0),
    limit: z.number().int().min(1),
    /** Turns run on while the control plane has a problem: which one (and when the next try is). */
    fault: ControlPlaneFaultSchema.optional(),
    retryAt: z.string().optional(),
  }),
  z.object({ state: z.literal('paused'), ...base, until: z.string().nullable() }),
  z.object({ state: z.literal('draining'), ...base, remaining: z.number().int().min(0) }),
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
      return 'idle';
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
  malformed: 'the control plane answered something unexpected',
};

/** The fault as the headline of an offline runner. */
const FAULT_HEADLINE: Record<ControlPlaneFault, string> = {
  unreachable: 'Cannot reach the control plane',
  timeout: 'Control plane timed out',
  server: 'Control plane error',
  refused: 'Control plane refused the request',
  malformed: 'Control plane answered something unexpected',
};

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
      return 'Idle';
    case 'working':
      return `Working ${status.active} of ${status.limit}${status.fault ? ` · ${FAULT_CLAUSE[status.fault]}` : ''}`;
    case 'paused':
      return status.until ? `Paused until ${clockOf(status.until)}` : 'Paused';
    case 'draining':
      return `Finishing ${status.remaining} running turn${status.remaining === 1 ? '' : 's'}`;
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
