import type { ChangesetView, GateView, PhaseRunView, PlanVersionView, TaskView } from '../../../../shared/operator';
import { isHttpUrl } from '../../../../shared/operator';
import { Untrusted } from './chips';
import { ExternalLink } from './external-link';
import { formatWhen, phaseLabel, words } from './format-request';

/** The phase runs, oldest first: one line each with its attempt and times. */
export function PhaseRuns({ runs }: { runs: PhaseRunView[] }) {
  if (runs.length === 0) return <p className="req-empty">No phase has run yet.</p>;
  return (
    <ol className="req-timeline" data-testid="phase-runs">
      {runs.map((run) => (
        <li key={run.id} className={`req-step req-step-${run.status}`}>
          <span className="req-step-name">
            {phaseLabel(run.phase)}
            {run.attempt > 1 ? <span className="req-muted"> · attempt {run.attempt}</span> : null}
          </span>
          <span className={`req-state req-state-${run.status}`}>{words(run.status)}</span>
          <span className="req-muted req-times">
            {run.startedAt ? formatWhen(run.startedAt) : 'not started'}
            {run.completedAt ? ` → ${formatWhen(run.completedAt)}` : ''}
          </span>
        </li>
      ))}
    </ol>
  );
}

/** Open gates first (they are what a human must act on), then the decided ones. */
export function Gates({ gates }: { gates: GateView[] }) {
  if (gates.length === 0) return <p className="req-empty">No gates.</p>;
  const ordered = [...gates].sort((a, b) => Number(b.status === 'open') - Number(a.status === 'open'));
  return (
    <ul className="req-list" data-testid="gates">
      {ordered.map((gate) => (
        <li key={gate.id} className={gate.status === 'open' ? 'req-item req-gate-open' : 'req-item'}>
          <span className={`req-state req-state-${gate.status}`}>{words(gate.status)}</span>
          <Untrusted text={gate.title} className="req-text req-clamp-3" />
          <span className="req-muted req-aside" title={gate.decidedAt ? `Decided ${formatWhen(gate.decidedAt)}` : undefined}>
            {words(gate.kind)}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Plan versions, newest first, with confidence and the clarifying questions and their answers. */
export function PlanVersions({ versions }: { versions: PlanVersionView[] }) {
  if (versions.length === 0) return <p className="req-empty">No plan yet.</p>;
  const newest = [...versions].sort((a, b) => b.versionNo - a.versionNo);
  return (
    <div className="req-plans" data-testid="plan-versions">
      {newest.map((v) => {
        const answered = new Map(v.answers.map((a) => [a.question, a.answer]));
        const unasked = v.answers.filter((a) => !v.clarifyingQuestions.includes(a.question));
        return (
          <article key={v.id} className="req-plan" aria-label={`Plan version ${v.versionNo}`}>
            <header className="req-plan-head">
              <strong>v{v.versionNo}</strong>
              <span className={`req-state req-state-${v.status}`}>{words(v.status)}</span>
              {v.confidenceScore !== null ? (
                <span className="req-confidence">
                  <meter min={0} max={100} value={Math.max(0, Math.min(100, v.confidenceScore))} low={50} high={75} optimum={100} aria-label="Confidence" />
                  <span data-testid="plan-confidence">{v.confidenceScore}% confidence</span>
                </span>
              ) : (
                <span className="req-muted">confidence not given</span>
              )}
            </header>
            {/* Summaries and answers are read in full: the detail scrolls, nothing is cut. */}
            {v.summary !== null ? <Untrusted text={v.summary} className="req-text req-block req-full" /> : null}
            {v.clarifyingQuestions.length + unasked.length > 0 ? (
              <dl className="req-qa" data-testid="clarifications">
                {[...v.clarifyingQuestions.map((q) => ({ question: q, answer: answered.get(q) ?? null })), ...unasked].map((qa, i) => (
                  <div key={i} className="req-qa-pair">
                    <dt>
                      <Untrusted text={qa.question} className="req-text req-clamp-3" />
                    </dt>
                    <dd>
                      {qa.answer !== null ? <Untrusted text={qa.answer} className="req-text req-full" /> : <span className="req-muted">Not answered yet</span>}
                    </dd>
                  </div>
                ))}
              </dl>
            ) : null}
          </article>
        );
      })}
    </div>
  );
}

/** Tasks in order; a completed task is a checkpoint a resume starts after. */
export function Tasks({ tasks }: { tasks: TaskView[] }) {
  if (tasks.length === 0) return <p className="req-empty">No tasks yet.</p>;
  return (
    <ol className="req-list" data-testid="tasks">
      {[...tasks]
        .sort((a, b) => a.ordinal - b.ordinal)
        .map((task) => (
          <li key={task.id} className="req-item">
            <span className={`req-state req-state-${task.status}`}>{words(task.status)}</span>
            <span className="req-text req-clamp-3">
              <span className="req-muted">#{task.ordinal} </span>
              <Untrusted text={task.title} />
            </span>
            <span className="req-muted req-aside" title={task.checkpointRef ?? undefined} data-testid="task-checkpoint">
              {task.checkpointRef || task.status === 'completed' ? `checkpoint ${formatWhen(task.completedAt)}` : ''}
            </span>
          </li>
        ))}
    </ol>
  );
}

export function Changesets({ changesets }: { changesets: ChangesetView[] }) {
  if (changesets.length === 0) return <p className="req-empty">No changesets yet.</p>;
  return (
    <ul className="req-list" data-testid="changesets">
      {changesets.map((c) => (
        <li key={c.id} className="req-item req-item-2">
          <span className={`req-state req-state-${c.status}`}>{words(c.status)}</span>
          <span className="req-text">
            <Untrusted text={c.title} className="req-clamp-2" />
            <span className="req-muted req-meta">
              {c.branch ? <Untrusted text={c.branch} className="req-mono req-branch" /> : null}
              <span className="req-add">+{c.additions}</span> <span className="req-del">−{c.deletions}</span>
              {isHttpUrl(c.prUrl) ? (
                <ExternalLink href={c.prUrl} testId="pr-link" showAddressWhenRefused>
                  pull request
                </ExternalLink>
              ) : null}
            </span>
          </span>
        </li>
      ))}
    </ul>
  );
}
