import type { SechroomAdmin } from '../admin/sechroom-admin';

export interface SechroomDemoSummary {
  brief_id: string;
  decomposition_id: string;
  tasks: string[];
  context_pack: { slug: string; version: string };
}

const PACK = { slug: 'acme-billing', version: '3' };

/** The first pass of demo cards; the trickle keeps adding more of the same kind. */
export const DEMO_TASKS = [
  {
    title: 'Add a CSV writer for invoice exports',
    objective: 'Write a streaming CSV writer for invoices with one row per line item.',
    acceptance: 'Unit tests cover quoting, UTF-8 and an empty invoice; `npm test` passes.',
    boundaries: 'Touch only src/billing/export/. No new dependencies.',
    closeout: 'Call sechroom_closeout with the files changed and the test command you ran.',
  },
  {
    title: 'Per-currency totals on the export',
    objective: 'Add a totals row per currency (EUR, USD, GBP) to the invoice export.',
    acceptance: 'Totals match the sum of line items to the cent; tests for mixed currencies.',
    boundaries: 'Do not change the invoice model. Keep the CSV column order.',
    closeout: 'Report the totals logic and the tests added.',
  },
  {
    title: 'Export button on the billing page',
    objective: 'Add an "Export CSV" button that downloads the current filter as a file.',
    acceptance: 'The button is keyboard reachable; the download name is invoices-<date>.csv.',
    boundaries: 'UI only: reuse the existing export endpoint.',
    closeout: 'Include a screenshot path or describe the manual check.',
  },
] as const;

/** A brief, an accepted work plan with three tasks (one needs a `ui` capability), and a context pack. Idempotent per database. */
export function seedSechroomDemo(admin: SechroomAdmin): SechroomDemoSummary {
  const existing = admin.listBriefs().find((b) => b.title === DEMO_BRIEF_TITLE);
  if (existing) {
    const plan = admin.listDecompositions().find((d) => d.briefId === existing.id)!;
    return {
      brief_id: existing.id,
      decomposition_id: plan.id,
      tasks: admin.listTasks({ decomposition_id: plan.id }).map((t) => t.memoryId),
      context_pack: PACK,
    };
  }
  const brief = admin.createBrief({ title: DEMO_BRIEF_TITLE });
  const plan = admin.createDecomposition({ brief_id: brief.id, title: 'Invoice export, driven executor slice', status: 'Accepted' });
  admin.publishBundle({
    ...PACK,
    components: [
      { title: 'Billing module map', body: 'src/billing/ holds the invoice model (model.ts), the export service (export/) and the page (page.tsx).' },
      { title: 'House rules', body: 'TypeScript strict, no default exports, tests beside the code as *.test.ts.' },
    ],
  });
  const tasks = DEMO_TASKS.map(
    (t, i) => admin.createTask({ ...t, decomposition_id: plan.id, context_pack: PACK, ...(i === 2 ? { capability_keys: ['ui'] } : {}) }).memoryId,
  );
  return { brief_id: brief.id, decomposition_id: plan.id, tasks, context_pack: PACK };
}

export const DEMO_BRIEF_TITLE = 'Invoice export for the billing page';
