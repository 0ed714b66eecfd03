import type { Result } from '../../../../shared/result';
import type { WorkActionOutcome, WorkBriefAction } from '../../../../shared/work-layer';
import { getBridge } from '../../bridge/instance';
import { useHostStore } from '../../store';
import { useWorkStore } from './work-store';

const set = useWorkStore.setState;
const shown = () => useHostStore.getState().profile;

/**
 * Reads the board of the profile shown. An answer that arrives after the window switched to
 * another profile is dropped, so one profile's list is never shown under another's name.
 */
export async function loadWorkBoard(): Promise<void> {
  const profile = shown();
  const result = await getBridge().invoke('work:board', { profile });
  if (shown() !== profile) return;
  if (result.ok) set({ profile, board: result.value, boardError: null });
  else set({ profile, board: null, boardError: result.error });
}

/** The window shows another profile: nothing of the last one's board, confirmation or outcome stays. */
export function forgetWorkBoard(): void {
  set({ profile: null, board: null, boardError: null, open: null, notice: null });
}

function settle(targetId: string, result: Result<WorkActionOutcome>): void {
  if (result.ok) set({ open: null, notice: { targetId, tone: result.value.changed ? 'ok' : 'warn', text: result.value.message } });
  void loadWorkBoard();
}

export async function runBriefAction(briefId: string, action: WorkBriefAction, reasonCode: string | null, reason: string): Promise<Result<WorkActionOutcome>> {
  const result = await getBridge().invoke('work:brief-action', {
    profile: shown(),
    briefId,
    action,
    ...(reasonCode ? { reasonCode } : {}),
    ...(reason.trim() ? { reason } : {}),
  });
  settle(briefId, result);
  return result;
}

export async function returnForRevision(decompositionId: string, notes: string): Promise<Result<WorkActionOutcome>> {
  const result = await getBridge().invoke('work:return-for-revision', { profile: shown(), decompositionId, notes });
  settle(decompositionId, result);
  return result;
}
