import type { LifecycleAction, LifecycleOutcome, ResumeBound } from '../../../../shared/operator';
import type { RequestStatus } from '../../../../shared/protocol';
import type { Result } from '../../../../shared/result';
import { getBridge } from '../../bridge/instance';
import { setOperator, useRequestsStore, type ActionNotice, type Handoff } from './requests-store';

const set = useRequestsStore.setState;
const get = useRequestsStore.getState;

/** Errors that mean the session is gone: the board then shows the sign-in instead. */
const SESSION_CODES = new Set(['not_signed_in', 'sign_in_again']);

export async function loadOperator(): Promise<void> {
  const result = await getBridge().invoke('operator:status');
  if (result.ok) setOperator(result.value);
  else set({ operatorError: result.error });
}

/** As many as the contract allows: the board is virtualized, so 1,000 rows cost what 10 do. */
const BOARD_LIMIT = 1000;

export async function loadBoard(): Promise<void> {
  const result = await getBridge().invoke('requests:list', { limit: BOARD_LIMIT });
  if (result.ok) set({ board: result.value, boardError: null });
  else {
    set({ boardError: result.error });
    if (SESSION_CODES.has(result.error.code)) void loadOperator();
  }
}

export async function loadDetail(id: string): Promise<void> {
  const result = await getBridge().invoke('requests:show', { id });
  // The operator may have moved on to another request while this was in flight.
  if (get().selectedId !== id) return;
  if (result.ok) set({ detail: result.value, detailError: null });
  else {
    set({ detailError: result.error });
    if (SESSION_CODES.has(result.error.code)) void loadOperator();
  }
}

export async function signIn(): Promise<Result<unknown>> {
  set({ signOutMessage: null });
  const result = await getBridge().invoke('operator:sign-in');
  if (result.ok) setOperator(result.value);
  return result;
}

export async function cancelSignIn(): Promise<void> {
  const result = await getBridge().invoke('operator:cancel-sign-in');
  if (result.ok) setOperator(result.value);
}

export async function signOut(): Promise<Result<unknown>> {
  const result = await getBridge().invoke('operator:sign-out');
  if (result.ok) {
    set({ operator: result.value.status, signOutMessage: result.value.message, board: null, detail: null, selectedId: null, handoffs: {}, notice: null });
  }
  return result;
}

const DONE_TEXT: Record<LifecycleAction, string> = {
  pause: 'Paused. No new work is claimed; running work halts at its next checkpoint.',
  resume: 'Resumed from the last completed checkpoint; the current phase is queued again.',
  cancel: 'Canceled. Unstarted work expired and running work is being stopped.',
};

const TARGET: Record<LifecycleAction, RequestStatus> = { pause: 'paused', resume: 'in_progress', cancel: 'canceled' };

/** Runs pause / resume / cancel; the answer is either done or a browser confirmation to follow. */
/** `bound` (resume only): the ceilings raised with it, after the control plane refused it for one. */
export async function runLifecycle(action: LifecycleAction, requestId: string, reason: string, bound?: ResumeBound): Promise<Result<LifecycleOutcome>> {
  const detail = get().detail;
  const statusBefore = detail?.request.id === requestId ? detail.request.status : 'open';
  const input = { id: requestId, ...(reason.trim() ? { reason } : {}) };
  const result =
    action === 'resume'
      ? await getBridge().invoke('requests:resume', { ...input, ...(bound ? { terminationBound: bound } : {}) })
      : await getBridge().invoke(action === 'pause' ? 'requests:pause' : 'requests:cancel', input);
  if (!result.ok) return result;
  const outcome = result.value;
  if (outcome.kind === 'done') {
    notify({ requestId, tone: 'ok', text: DONE_TEXT[action] });
  } else {
    const handoff: Handoff = {
      action,
      requestId,
      confirmationId: outcome.confirmationId,
      url: outcome.url,
      expiresAt: outcome.expiresAt,
      statusBefore,
      confirmation: null,
    };
    set((s) => ({ handoffs: { ...s.handoffs, [requestId]: handoff }, notice: null }));
  }
  void loadDetail(requestId);
  void loadBoard();
  return result;
}

/** One look at a pending confirmation; ends the handoff when a human decided (or the request moved). */
export async function followHandoff(requestId: string): Promise<void> {
  const handoff = get().handoffs[requestId];
  if (!handoff) return;
  const [confirmation] = await Promise.all([getBridge().invoke('requests:confirmation', { id: handoff.confirmationId }), loadDetail(requestId)]);
  const current = get().handoffs[requestId];
  if (!current || current.confirmationId !== handoff.confirmationId) return;
  const view = confirmation.ok ? confirmation.value : current.confirmation;
  const status = get().detail?.request.id === requestId ? get().detail?.request.status : undefined;
  if (view && view.status !== 'pending') return endHandoff(current, endText(current, view.status, view.error));
  // A control plane that cannot tell us about the confirmation: the request itself says it happened.
  if (!confirmation.ok && status !== undefined && status !== handoff.statusBefore && status === TARGET[handoff.action]) {
    return endHandoff(current, endText(current, 'confirmed', null));
  }
  set((s) => ({ handoffs: { ...s.handoffs, [requestId]: { ...current, confirmation: view } } }));
}

export function dropHandoff(requestId: string): void {
  set((s) => {
    const { [requestId]: _dropped, ...rest } = s.handoffs;
    return { handoffs: rest };
  });
}

function endText(handoff: Handoff, status: string, error: string | null): Omit<ActionNotice, 'requestId'> {
  switch (status) {
    case 'confirmed':
      return { tone: 'ok', text: `Confirmed in the browser. ${DONE_TEXT[handoff.action]}` };
    case 'declined':
      return { tone: 'warn', text: 'Declined in the browser: nothing changed.' };
    case 'expired':
      return { tone: 'warn', text: 'The confirmation expired before anyone decided: nothing changed. Try again.' };
    default:
      return { tone: 'warn', text: `Confirmed, but the control plane could not do it${error ? `: ${error}` : ''}. Refresh and try again.` };
  }
}

function endHandoff(handoff: Handoff, notice: Omit<ActionNotice, 'requestId'>): void {
  dropHandoff(handoff.requestId);
  notify({ requestId: handoff.requestId, ...notice });
  void loadBoard();
}

function notify(notice: ActionNotice): void {
  set({ notice });
}
