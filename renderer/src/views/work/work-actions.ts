import type { Result } from '../../../../shared/result';
import type { WorkActionOutcome, WorkBriefAction } from '../../../../shared/work-layer';
import { getBridge } from '../../bridge/instance';
import { useWorkStore } from './work-store';

const set = useWorkStore.setState;

export async function loadWorkBoard(): Promise<void> {
  const result = await getBridge().invoke('work:board');
  if (result.ok) set({ board: result.value, boardError: null });
  else set({ boardError: result.error });
}

function settle(targetId: string, result: Result<WorkActionOutcome>): void {
  if (result.ok) set({ open: null, notice: { targetId, tone: result.value.changed ? 'ok' : 'warn', text: result.value.message } });
  void loadWorkBoard();
}

export async function runBriefAction(briefId: string, action: WorkBriefAction, reasonCode: string | null, reason: string): Promise<Result<WorkActionOutcome>> {
  const result = await getBridge().invoke('work:brief-action', {
    briefId,
    action,
    ...(reasonCode ? { reasonCode } : {}),
    ...(reason.trim() ? { reason } : {}),
  });
  settle(briefId, result);
  return result;
}

export async function returnForRevision(decompositionId: string, notes: string): Promise<Result<WorkActionOutcome>> {
  const result = await getBridge().invoke('work:return-for-revision', { decompositionId, notes });
  settle(decompositionId, result);
  return result;
}
