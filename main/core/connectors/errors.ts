import type { ControlPlaneFault } from '../../../shared/status';

/**
 * What can go wrong talking to a control plane, by what the runner should do about it:
 * `network` and `server` are retried with backoff, `unauthorized` means the secret was
 * revoked, `invalid_response` is logged and retried like a network fault, `rejected` is
 * a 4xx the caller must handle.
 */
export type ConnectorErrorKind = 'network' | 'timeout' | 'unauthorized' | 'server' | 'rejected' | 'invalid_response' | 'not_found';

export class ConnectorError extends Error {
  constructor(
    readonly kind: ConnectorErrorKind,
    message: string,
    readonly status?: number,
    /** A parsed error code from the body, e.g. `authorization_pending`. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }

  get retryable(): boolean {
    return this.kind === 'network' || this.kind === 'timeout' || this.kind === 'server' || this.kind === 'invalid_response';
  }
}

export function isConnectorError(error: unknown, kind?: ConnectorErrorKind): error is ConnectorError {
  return error instanceof ConnectorError && (kind === undefined || error.kind === kind);
}

/** How the window words a failed call: by what the operator can tell from it. */
export function faultOf(error: unknown): ControlPlaneFault {
  if (!(error instanceof ConnectorError)) return 'unreachable';
  switch (error.kind) {
    case 'network':
      return 'unreachable';
    case 'timeout':
      return 'timeout';
    case 'server':
      return 'server';
    case 'invalid_response':
      return 'malformed';
    case 'unauthorized':
    case 'rejected':
    case 'not_found':
      return 'refused';
  }
}

const FAULT_REASON: Record<ControlPlaneFault, string> = {
  unreachable: 'Cannot reach the control plane',
  timeout: 'The control plane did not answer in time',
  server: 'The control plane is failing',
  refused: 'The control plane refused the heartbeat',
  malformed: 'The control plane answers nonsense (its answers do not fit the protocol)',
};

/** The status reason for a failed call to the control plane (either plane's), worded for what failed. */
export function faultReason(fault: ControlPlaneFault, detail: string): string {
  return `${FAULT_REASON[fault]}: ${detail}`;
}
