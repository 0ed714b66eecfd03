import { getMeta, setMeta } from '../db/database';
import type { CreateBuildRequestInput } from '../domain/forge/forge-inputs';
import type { Services } from '../services';

export interface DemoSeedSummary {
  tenant_id: string;
  operators: Array<{ id: string; name: string; role: string }>;
  project_id: string;
  requests: Record<string, string>;
}

/** Dev sign-in names of the demo operators (documented in docs/protocol.md). */
export const DEMO_OPERATORS = [
  { name: 'Ada Admin', role: 'tenant_admin' },
  { name: 'Max Member', role: 'member' },
] as const;

/**
 * A tenant, two operators, a project and requests in every status, with phase
 * runs, gates, plans, tasks and changesets. Idempotent: a file database seeded
 * once is not seeded again.
 */
export function seedDemo(s: Services): DemoSeedSummary {
  const stored = getMeta(s.ctx.db, 'demo_seed');
  if (stored) return JSON.parse(stored) as DemoSeedSummary;
  const previous = s.identity.defaultTenantId();
  const tenant = s.identity.createTenant('Acme Robotics');
  s.identity.setDefaultTenant(tenant.id);
  s.identity.dropIfEmpty(previous);
  const operators = DEMO_OPERATORS.map((o) => s.identity.createOperator({ name: o.name, role: o.role, tenant_id: tenant.id }));
  const project = s.forge.createProject({ tenant_id: tenant.id, name: 'Acme web app', slug: 'acme-web', base_branch: 'main' });
  const req = (title: string, extra: Partial<CreateBuildRequestInput>) =>
    s.forge.createBuildRequest({ tenant_id: tenant.id, software_project_id: project.id, title, with_phase_run: false, ...extra }).id;

  const active = seedActiveRequest(s, req);
  const others = seedOtherRequests(s, req);

  const summary: DemoSeedSummary = {
    tenant_id: tenant.id,
    operators: operators.map((o) => ({ id: o.id, name: o.name, role: o.role })),
    project_id: project.id,
    requests: { in_progress: active, ...others },
  };
  setMeta(s.ctx.db, 'demo_trickle_request_id', active);
  setMeta(s.ctx.db, 'demo_seed', JSON.stringify(summary));
  s.ctx.events.emit('demo.seeded', { tenant_id: tenant.id });
  return summary;
}

type NewRequest = (title: string, extra: Partial<CreateBuildRequestInput>) => string;

/** The in-progress request carries the whole history and the trickle's turns. */
function seedActiveRequest(s: Services, req: NewRequest): string {
  const active = req('Add invoice export to the billing page', {
    status: 'in_progress',
    current_phase: 'build',
    inferred_risk: 'medium',
    automation_mode: 'pull_request_only',
    source_channel: 'github_issue',
    max_iterations: 12,
    max_wall_clock_seconds: 7200,
    cost_budget_usd: '25.00',
    iterations_used: 3,
  });
  for (const phase of ['intake', 'planning', 'plan_review'] as const) s.forge.addPhaseRun(active, { phase, status: 'succeeded' });
  const build = s.forge.addPhaseRun(active, { phase: 'build', status: 'running' });
  s.forge.addGate(active, { kind: 'plan_approval', title: 'Approve the build plan', status: 'approved', phase_run_id: null });
  s.forge.addPlanVersion(active, {
    status: 'superseded',
    summary: 'Export invoices as CSV from the billing page.',
    confidence_score: 55,
    clarifying_questions: ['Which currencies must the export support?', 'Should credit notes be included?'],
  });
  const plan = s.forge.addPlanVersion(active, {
    status: 'approved',
    summary: 'CSV and XLSX export with per-currency totals; credit notes as negative rows.',
    confidence_score: 82,
    clarifying_questions: ['Which currencies must the export support?', 'Should credit notes be included?'],
    clarification_answers: [
      { question: 'Which currencies must the export support?', answer: 'EUR, USD and GBP.' },
      { question: 'Should credit notes be included?', answer: 'Yes, as negative amounts.' },
    ],
  });
  const t1 = s.forge.addTask(active, { plan_version_id: plan.id, title: 'Add export service with CSV writer', status: 'completed' });
  s.forge.addTask(active, { plan_version_id: plan.id, title: 'Per-currency totals', status: 'completed' });
  s.forge.addTask(active, { plan_version_id: plan.id, title: 'Export button and download on the billing page', status: 'in_progress' });
  s.forge.addTask(active, { plan_version_id: plan.id, title: 'XLSX writer', status: 'pending' });
  s.forge.addChangeset(active, {
    task_id: t1.id,
    title: 'feat(billing): invoice export service',
    status: 'open',
    branch: 'forge/invoice-export',
    pr_url: 'https://github.com/acme/web/pull/412',
    additions: 214,
    deletions: 12,
  });
  s.forge.addGate(active, { kind: 'code_review', title: 'Review the export service changes', status: 'open', phase_run_id: build.id });
  return active;
}

/** One request in each of the other statuses, with a little history each. */
function seedOtherRequests(s: Services, req: NewRequest) {
  const open = req('Fix flaky login test on CI', { status: 'open', current_phase: 'intake', inferred_risk: 'low', source_channel: 'cli' });
  s.forge.addPhaseRun(open, { phase: 'intake', status: 'queued' });

  const paused = req('Migrate CI to the new runner fleet', {
    status: 'paused',
    status_reason: 'Operator hold during the release freeze',
    current_phase: 'build',
    inferred_risk: 'high',
    max_iterations: 20,
    iterations_used: 6,
  });
  s.forge.addPhaseRun(paused, { phase: 'build', status: 'paused' });
  s.forge.addTask(paused, { title: 'Inventory current CI jobs', status: 'completed' });
  s.forge.addTask(paused, { title: 'Port the unit test job', status: 'pending' });

  const blocked = req('Rotate webhook signing keys', {
    status: 'blocked',
    status_reason: 'Waiting for a human to approve the plan',
    current_phase: 'plan_review',
    inferred_risk: 'critical',
    automation_mode: 'plan_only',
  });
  const review = s.forge.addPhaseRun(blocked, { phase: 'plan_review', status: 'paused' });
  s.forge.addPlanVersion(blocked, {
    status: 'ready_for_review',
    summary: 'Dual-key rollout with a 24 h overlap.',
    confidence_score: 70,
    clarifying_questions: ['Who owns the partner notification?'],
  });
  s.forge.addGate(blocked, { kind: 'plan_approval', title: 'Approve the key rotation plan', status: 'open', phase_run_id: review.id });

  const canceled = req('Experimental dark mode', { status: 'canceled', status_reason: 'Out of scope', current_phase: 'planning' });
  s.forge.addPhaseRun(canceled, { phase: 'planning', status: 'canceled' });

  const closed = req('Bump dependencies (June)', { status: 'closed', current_phase: 'release', iterations_used: 4 });
  for (const phase of ['intake', 'planning', 'build', 'verify', 'release'] as const) s.forge.addPhaseRun(closed, { phase, status: 'succeeded' });
  s.forge.addChangeset(closed, { title: 'chore(deps): June bumps', status: 'merged', branch: 'forge/deps-june', additions: 88, deletions: 91 });
  return { open, paused, blocked, canceled, closed };
}
