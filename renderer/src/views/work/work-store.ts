import { create } from 'zustand';
import type { CommandError } from '../../../../shared/result';
import type { WorkBoard, WorkBriefAction } from '../../../../shared/work-layer';

/** The one confirmation open at a time: a brief's verb, or a plan's return for revision. */
export type OpenConfirm = { kind: 'brief'; id: string; action: WorkBriefAction } | { kind: 'plan'; id: string } | null;

/** What the last action said, beside the brief or plan it was for. */
export interface WorkNotice {
  targetId: string;
  tone: 'ok' | 'warn';
  text: string;
}

/**
 * The Work view's own store: the Work Layer board of the profile shown as the core reads it, the open
 * confirmation, and the last outcome. Fed by work-actions.ts; views only read it.
 */
export interface WorkState {
  /** The profile the board and its error are of (the profile shown when they were read). */
  profile: string | null;
  board: WorkBoard | null;
  boardError: CommandError | null;
  open: OpenConfirm;
  notice: WorkNotice | null;
}

export const useWorkStore = create<WorkState>(() => ({ profile: null, board: null, boardError: null, open: null, notice: null }));

export function openConfirm(open: OpenConfirm): void {
  useWorkStore.setState({ open });
}
