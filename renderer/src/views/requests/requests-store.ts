import { create } from 'zustand';
import type { ConfirmationView, LifecycleAction, OperatorStatus, RequestBoard, RequestDetailView } from '../../../../shared/operator';
import type { RequestStatus } from '../../../../shared/protocol';
import type { CommandError } from '../../../../shared/result';

/** A lifecycle command a human must confirm in the browser, followed until it ends. */
export interface Handoff {
  action: LifecycleAction;
  requestId: string;
  confirmationId: string;
  url: string;
  expiresAt: string;
  /** The request's status when the handoff began: a change means someone decided. */
  statusBefore: RequestStatus;
  confirmation: ConfirmationView | null;
}

/** What a finished action says, in one line, until the next one. */
export interface ActionNotice {
  requestId: string;
  tone: 'ok' | 'warn';
  text: string;
}

/**
 * The requests view's own store: the operator session as the core reports it, the
 * board, the open request, and pending confirmations. Fed by requests-actions.ts (pulls)
 * and requests-sync.ts (the `operator:state` event); views only read it.
 */
export interface RequestsState {
  operator: OperatorStatus | null;
  operatorError: CommandError | null;
  board: RequestBoard | null;
  boardError: CommandError | null;
  filter: RequestStatus | 'all';
  selectedId: string | null;
  detail: RequestDetailView | null;
  detailError: CommandError | null;
  handoffs: Record<string, Handoff>;
  notice: ActionNotice | null;
  signOutMessage: string | null;
}

export const initialRequestsState: RequestsState = {
  operator: null,
  operatorError: null,
  board: null,
  boardError: null,
  filter: 'all',
  selectedId: null,
  detail: null,
  detailError: null,
  handoffs: {},
  notice: null,
  signOutMessage: null,
};

export const useRequestsStore = create<RequestsState>(() => initialRequestsState);

/**
 * A new operator status. When someone else (another operator or tenant) is now signed
 * in, or nobody is, what the last one saw is dropped: it was theirs, not this one's.
 */
export function setOperator(operator: OperatorStatus): void {
  useRequestsStore.setState((s) => {
    const owner = ownerOf(operator);
    if (owner === ownerOf(s.operator) || (s.operator === null && s.board === null)) return { operator, operatorError: null };
    const keepWhileExpired = owner === null && operator.session.state === 'sign_in_again';
    return keepWhileExpired
      ? { operator, operatorError: null }
      : { operator, operatorError: null, board: null, boardError: null, detail: null, detailError: null, selectedId: null, handoffs: {}, notice: null };
  });
}

function ownerOf(status: OperatorStatus | null): string | null {
  const session = status?.session;
  return session?.state === 'signed_in' ? `${session.identity.tenantId}/${session.identity.operatorId}` : null;
}

export function setFilter(filter: RequestsState['filter']): void {
  useRequestsStore.setState({ filter });
}

/**
 * Opens one request's detail (or the board, for null). The address says which
 * (`#requests/<id>`), so a detail can be reloaded, bookmarked and linked to.
 */
export function selectRequest(id: string | null): void {
  const hash = id ? `#requests/${encodeURIComponent(id)}` : '#requests';
  if (window.location.hash !== hash) window.location.hash = hash;
  showRequest(id);
}

/** Follows the address: the request it names, without writing the address again. */
export function showRequest(id: string | null): void {
  if (useRequestsStore.getState().selectedId === id) return;
  useRequestsStore.setState((s) => ({
    selectedId: id,
    // Keep the detail only when it is the one being opened again.
    detail: id && s.detail?.request.id === id ? s.detail : null,
    detailError: null,
    notice: s.notice?.requestId === id ? s.notice : null,
  }));
}
