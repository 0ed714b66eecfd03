import type { RequestStatus, RiskLevel } from '../../../../shared/protocol';
import { RISK_LABEL, STATUS_LABEL } from './format-request';

export function StatusChip({ status }: { status: RequestStatus }) {
  return (
    <span className={`req-chip req-status-${status}`} data-testid="request-status">
      {STATUS_LABEL[status]}
    </span>
  );
}

export function RiskChip({ risk }: { risk: RiskLevel }) {
  return (
    <span className={`req-risk req-risk-${risk}`} title={`Inferred risk: ${RISK_LABEL[risk]}`}>
      {RISK_LABEL[risk]}
    </span>
  );
}

/** Untrusted text from the control plane: isolated from the page's text direction, never HTML. */
export function Untrusted({ text, className }: { text: string; className?: string }) {
  return (
    <bdi className={className} dir="auto">
      {text}
    </bdi>
  );
}
