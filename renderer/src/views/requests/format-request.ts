import type { LifecycleAction } from '../../../../shared/operator';
import { AUTOMATION_MODES, type Phase, type RequestStatus, type RiskLevel, type SourceChannel } from '../../../../shared/protocol';

/** Words for the enums the control plane sends; the values themselves are never shown raw. */
export const STATUS_LABEL: Record<RequestStatus, string> = {
  open: 'Open',
  in_progress: 'In progress',
  paused: 'Paused',
  blocked: 'Blocked',
  canceled: 'Canceled',
  closed: 'Closed',
};

export const PHASE_LABEL: Record<Phase, string> = {
  intake: 'Intake',
  planning: 'Planning',
  plan_review: 'Plan review',
  build: 'Build',
  verify: 'Verify',
  review: 'Review',
  release: 'Release',
};

/**
 * A phase in words: ours by name, any other name the control plane uses shown as it is
 * (the seed's list is truncated, so a real server may send phases we do not know).
 */
export function phaseLabel(phase: string): string {
  return Object.hasOwn(PHASE_LABEL, phase) ? PHASE_LABEL[phase as Phase] : phase;
}

export const RISK_LABEL: Record<RiskLevel, string> = { low: 'Low', medium: 'Medium', high: 'High', critical: 'Critical' };

/** An automation mode: a known one in words, any other name as the control plane sent it. */
export function automationLabel(mode: string): string {
  return (AUTOMATION_MODES as readonly string[]).includes(mode) ? words(mode) : mode;
}

/** Any other snake_case value from the control plane, as words. */
export function words(value: string): string {
  const text = value.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "12 s", "4 min", "5 h", "3 d": how long since `iso`. */
export function formatAge(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** 7200 → "2 h", 5400 → "1 h 30 min", 90 → "2 min". */
export function formatSeconds(total: number): string {
  const minutes = Math.round(total / 60);
  if (minutes < 60) return `${Math.max(1, minutes)} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

export function formatUsd(decimal: string): string {
  const n = Number(decimal);
  return Number.isFinite(n) ? `$${n.toFixed(2)}` : `$${decimal}`;
}

// One formatter module for times (views/format.ts); these names stay for the request views.
export { formatStamp, formatWhen } from '../format';

export const SOURCE_LABEL: Record<SourceChannel, string> = {
  ui: 'the web app',
  cli: 'the CLI',
  github_issue: 'a GitHub issue',
  linear: 'Linear',
  api: 'the API',
};

/** What each action may act on, as the control plane allows it (protocol §5). */
export function actionAvailable(action: LifecycleAction, status: RequestStatus): { ok: boolean; why: string | null } {
  switch (action) {
    case 'pause':
      return ['open', 'in_progress', 'blocked'].includes(status)
        ? { ok: true, why: null }
        : { ok: false, why: `A ${STATUS_LABEL[status].toLowerCase()} request cannot be paused.` };
    case 'resume':
      return status === 'paused' || status === 'blocked' ? { ok: true, why: null } : { ok: false, why: 'Only a paused or blocked request can resume.' };
    case 'cancel':
      return status === 'canceled' || status === 'closed' ? { ok: false, why: `The request is already ${status}.` } : { ok: true, why: null };
  }
}

export const ACTION_LABEL: Record<LifecycleAction, string> = { pause: 'Pause', resume: 'Resume', cancel: 'Cancel request' };
