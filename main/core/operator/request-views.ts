import type { CapacityView, ConfirmationView, LifecycleResultView, RequestBoard, RequestDetailView, RequestSummaryView } from '../../../shared/operator';
import {
  LifecycleOutputSchema,
  type BuildRequestSummary,
  type CapacityObservationSummary,
  type ConfirmationStatus,
  type LifecycleOutput,
  type RequestListOutput,
  type RequestShowOutput,
} from '../../../shared/protocol';
import type { TurnsSnapshot } from '../../../shared/turns';

/** Wire shapes (snake_case, protocol §5) to the shapes the window shows. Text passes through as data. */
export function summaryView(r: BuildRequestSummary): RequestSummaryView {
  return {
    id: r.id,
    projectId: r.software_project_id,
    title: r.title,
    status: r.status,
    sourceChannel: r.source_channel,
    currentPhase: r.current_phase,
    risk: r.inferred_risk,
    automationMode: r.automation_mode,
    maxIterations: r.max_iterations,
    iterationsUsed: r.iterations_used,
    maxWallClockSeconds: r.max_wall_clock_seconds,
    costBudgetUsd: r.cost_budget_usd,
    createdAt: r.created_at,
    statusReason: r.status_reason ?? null,
  };
}

export function boardView(output: RequestListOutput, turns: TurnsSnapshot, now: number): RequestBoard {
  return {
    requests: output.requests.map(summaryView),
    activeHere: turns.active.flatMap((t) => (t.buildRequestId ? [{ turnId: t.id, buildRequestId: t.buildRequestId }] : [])),
    fetchedAt: new Date(now).toISOString(),
  };
}

/** History is capped: a request's detail shows its most recent finished turns on this runner. */
const DETAIL_HISTORY_LIMIT = 50;

export function detailView(output: RequestShowOutput, turns: TurnsSnapshot, now: number): RequestDetailView {
  const id = output.request.id;
  return {
    // The show answer's current_phase is the authoritative one.
    request: { ...summaryView(output.request), currentPhase: output.current_phase },
    phaseRuns: output.phase_runs.map((p) => ({
      id: p.id,
      phase: p.phase,
      status: p.status,
      attempt: p.attempt,
      startedAt: p.started_at,
      completedAt: p.completed_at,
      createdAt: p.created_at,
    })),
    gates: output.gates.map((g) => ({
      id: g.id,
      kind: g.kind,
      title: g.title,
      status: g.status,
      phaseRunId: g.phase_run_id,
      decidedAt: g.decided_at,
      createdAt: g.created_at,
    })),
    planVersions: output.plan_versions.map((v) => ({
      id: v.id,
      versionNo: v.version_no,
      status: v.status,
      summary: v.summary,
      confidenceScore: v.confidence_score,
      clarifyingQuestions: v.clarifying_questions,
      answers: v.clarification_answers,
      createdAt: v.created_at,
    })),
    tasks: output.tasks.map((t) => ({
      id: t.id,
      ordinal: t.ordinal,
      title: t.title,
      status: t.status,
      planVersionId: t.plan_version_id,
      checkpointRef: t.checkpoint_ref,
      completedAt: t.completed_at,
    })),
    changesets: output.changesets.map((c) => ({
      id: c.id,
      title: c.title,
      status: c.status,
      branch: c.branch,
      prUrl: c.pr_url,
      additions: c.additions,
      deletions: c.deletions,
      taskId: c.task_id,
    })),
    turns: {
      active: turns.active.filter((t) => t.buildRequestId === id),
      history: turns.history.filter((t) => t.buildRequestId === id).slice(0, DETAIL_HISTORY_LIMIT),
    },
    fetchedAt: new Date(now).toISOString(),
  };
}

export function lifecycleResultView(o: LifecycleOutput): LifecycleResultView {
  return {
    status: o.status,
    currentPhase: o.current_phase,
    phaseRunId: o.phase_run_id,
    workOrderId: o.work_order_id,
    resumeFromTaskId: o.resume_from_task_id,
  };
}

export function confirmationView(c: ConfirmationStatus): ConfirmationView {
  const output = c.status === 'confirmed' ? LifecycleOutputSchema.safeParse(c.output) : null;
  const error = c.error ? (c.error.message ?? c.error.error) : null;
  return {
    id: c.id,
    status: c.status,
    expiresAt: c.expires_at,
    result: output?.success ? lifecycleResultView(output.data) : null,
    error: error ? error.replace(/[\r\n\t]+/g, ' ').slice(0, 300) : null,
  };
}

/** Observations come newest first: the first of each runner is what it said last. */
export function capacityView(output: { observations: readonly CapacityObservationSummary[] }): CapacityView {
  const seen = new Set<string>();
  const runners: CapacityView['runners'] = [];
  for (const o of output.observations) {
    if (seen.has(o.runner_id)) continue;
    seen.add(o.runner_id);
    runners.push({
      runnerId: o.runner_id,
      name: o.runner_name,
      runtimes: o.runtimes,
      activeSessions: o.active_sessions,
      maxSessions: o.max_sessions,
      usageState: o.model_account_state,
      paused: o.paused,
      observedAt: o.observed_at,
    });
  }
  return { runners };
}
