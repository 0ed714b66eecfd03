import { parseArgs } from 'node:util';
import { z } from 'zod';
import { errorText } from '../../shared/errors';
import type { BRIEF_STATUS_TARGETS } from '../../shared/protocol/sechroom';
import type { FetchLike } from '../core/connectors/http-json';
import { StaticTokenSource } from '../core/planes/sechroom/sechroom-auth';
import { WorkLayerClient } from '../core/planes/sechroom/work-layer-client';
import { parseAppendInput, parsePlanInput, parseResidueInput, WorkInputError } from '../core/planes/sechroom/work-plan-input';

/*
 * The seed's work-brief, work-plan and work-task commands (sechroom-protocol.md B13), named
 * as the seed names them: `runner-tray-headless work-plan resume wlp_1`. The Work Layer is
 * `--control-plane` (or SECHROOM_BASE_URL), the tenant `--tenant` (or SECHROOM_TENANT), the
 * bearer SECHROOM_TOKEN. Each prints the seed's one line (`--json`: the answer instead);
 * input files (`--file <path>`, `-` for stdin) fail with the seed's messages.
 * Exit: 0 done, 1 the Work Layer refused or a file is unusable, 2 a bad command line.
 */

export const WORK_USAGE =
  'Usage: runner-tray-headless work-brief park|unpark|supersede <briefId> --source <s>\n' +
  '       runner-tray-headless work-plan create <briefId> | create-from-tasks <briefId> --file <path|-> | append <decompositionId> --file <path|->\n' +
  '       runner-tray-headless work-plan resume <id> | accept <id> | return-for-revision <id> --notes <text> | list [--status] [--brief] [--page] [--page-size]\n' +
  '       runner-tray-headless work-task list [--lane] [--status] [--page] [--page-size] | card <taskId> | residue-produce <taskId> --file <path|-> | mark-no-residue <taskId> --decomposition <wlp_…>\n' +
  '       (all: [--control-plane <work layer url>] [--tenant <id>] [--json]; SECHROOM_TOKEN is the bearer)';

const OPTIONS = {
  'control-plane': { type: 'string' },
  tenant: { type: 'string' },
  json: { type: 'boolean' },
  source: { type: 'string' },
  file: { type: 'string' },
  notes: { type: 'string' },
  status: { type: 'string' },
  brief: { type: 'string' },
  lane: { type: 'string' },
  decomposition: { type: 'string' },
  page: { type: 'string' },
  'page-size': { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];
const PageSchema = z.coerce.number().int().min(1).max(100_000).optional();

export interface WorkCliDeps {
  env: Readonly<Record<string, string | undefined>>;
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
  readFile(file: string): Promise<string>;
  readStdin(): Promise<string>;
  fetch?: FetchLike;
}

class UsageError extends Error {}

interface Run {
  client: WorkLayerClient;
  values: Values;
  id: string;
  input(): Promise<{ raw: string; source: string }>;
}

/** One line and the answer: what each command does and says [seed B13]. */
const COMMANDS: Record<string, (run: Run) => Promise<{ line: string; data: unknown }>> = {
  'work-brief park': (run) => briefStatus(run, 'park', 'status:parked'),
  'work-brief unpark': (run) => briefStatus(run, 'unpark', 'status:ready_for_decomposition'),
  'work-brief supersede': (run) => briefStatus(run, 'supersede', 'status:superseded'),
  'work-plan create': async ({ client, id }) => {
    const data = await client.decompose(id);
    return { line: `created work plan from ${id} → ${data.suggestionId}`, data };
  },
  'work-plan create-from-tasks': async ({ client, id, input }) => {
    const { raw, source } = await input();
    const data = await client.decomposeFromPlan(id, parsePlanInput(raw, source));
    return { line: `created ${data.suggestionId} from ${data.taskCount} hand-authored task(s)`, data };
  },
  'work-plan append': async ({ client, id, input }) => {
    const { raw, source } = await input();
    const data = await client.appendTasks(id, parseAppendInput(raw, source));
    return { line: `appended ${data.appendedTaskIds.length} task(s) to ${id}`, data };
  },
  'work-plan resume': async ({ client, id }) => {
    const data = await client.resumePlan(id);
    return { line: `resumed work plan ${id} → ${data.status}`, data };
  },
  'work-plan accept': async ({ client, id }) => {
    const data = await client.acceptPlan(id);
    return { line: `accepted work plan ${id} → ${data.status}`, data };
  },
  'work-plan return-for-revision': async ({ client, id, values }) => {
    if (!values.notes) throw new UsageError('--notes <text> is required');
    const data = await client.returnForRevision(id, values.notes);
    return { line: `returned ${id} → ${data.newSuggestionId}`, data };
  },
  'work-plan list': async ({ client, values }) => {
    const data = await client.decompositions({ ...filters(values), ...(values.brief ? { briefId: values.brief } : {}) });
    return { line: `listed ${data.items.length} of ${data.count} work plan(s)`, data };
  },
  'work-task list': async ({ client, values }) => {
    const data = await client.tasks({ ...filters(values), ...(values.lane ? { lane: values.lane } : {}) });
    return { line: `listed ${data.items.length} of ${data.count} work task(s)`, data };
  },
  'work-task card': async ({ client, id }) => {
    const data = await client.card(id);
    return { line: `read card ${id}`, data };
  },
  'work-task residue-produce': async ({ client, id, input }) => {
    const { raw, source } = await input();
    const data = await client.produceResidue(parseResidueInput(raw, source, id));
    return { line: `produced ${data.produced.length} residue item(s) for ${id}`, data };
  },
  'work-task mark-no-residue': async ({ client, id, values }) => {
    if (!values.decomposition) throw new UsageError('--decomposition <wlp_…> is required');
    const data = await client.markNoResidue(id, values.decomposition);
    return { line: `marked ${id} no-residue (minted: ${data.minted})`, data };
  },
};

const LISTS = new Set(['work-plan list', 'work-task list']);

async function briefStatus(run: Run, action: string, to: (typeof BRIEF_STATUS_TARGETS)[number]) {
  if (!run.values.source) throw new UsageError('--source <source> is required');
  const data = await run.client.briefStatus(run.id, to, run.values.source);
  return { line: `${action} work brief ${run.id} → ${data.to}`, data };
}

function filters(values: Values): { status?: string; page?: number; pageSize?: number } {
  const page = PageSchema.safeParse(values.page);
  const pageSize = z.coerce.number().int().min(1).max(200).optional().safeParse(values['page-size']);
  if (!page.success) throw new UsageError('--page must be a whole number from 1');
  if (!pageSize.success) throw new UsageError('--page-size must be a whole number from 1 to 200');
  return {
    ...(values.status ? { status: values.status } : {}),
    ...(page.data ? { page: page.data } : {}),
    ...(pageSize.data ? { pageSize: pageSize.data } : {}),
  };
}

/** `runner-tray-headless work-brief|work-plan|work-task …`. */
export async function runWorkCommand(argv: readonly string[], deps: WorkCliDeps): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    deps.out.write(`${WORK_USAGE}\n`);
    return 0;
  }
  const usage = (message: string) => {
    deps.err.write(`runner-tray ${argv[0] ?? 'work'}: ${message}\n${WORK_USAGE}\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return usage(errorText(error));
  }
  const [group, verb, id, ...extra] = parsed.positionals;
  const name = `${group} ${verb}`;
  const command = COMMANDS[name];
  if (!command) return usage(verb ? `unknown command: ${name.slice(0, 60)}` : 'which command?');
  if (extra.length > 0 || (!LISTS.has(name) && !id) || (LISTS.has(name) && id)) return usage(`${name}: ${LISTS.has(name) ? 'takes no id' : 'needs one id'}`);
  const values = parsed.values;
  const baseUrl = values['control-plane'] ?? deps.env.SECHROOM_BASE_URL;
  const tenant = values.tenant ?? deps.env.SECHROOM_TENANT;
  if (!baseUrl) return usage('--control-plane (or SECHROOM_BASE_URL) names the Work Layer');
  if (!tenant) return usage('--tenant (or SECHROOM_TENANT) is required');
  if (!deps.env.SECHROOM_TOKEN) return usage('SECHROOM_TOKEN (a bearer for the Work Layer) is required');
  const token = deps.env.SECHROOM_TOKEN;
  const client = new WorkLayerClient({
    baseUrl,
    tenant,
    tokens: new StaticTokenSource(token),
    knownSecrets: () => [token],
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const input = async () => {
    const file = values.file;
    if (!file) throw new UsageError('--file <path> (or - for stdin) is required');
    return { raw: file === '-' ? await deps.readStdin() : await deps.readFile(file), source: file };
  };
  try {
    const done = await command({ client, values, id: id ?? '', input });
    deps.out.write(values.json ? `${JSON.stringify(done.data, null, 2)}\n` : `${done.line}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    const why = error instanceof WorkInputError ? error.message : errorText(error);
    deps.err.write(`runner-tray ${group}: ${name} failed: ${why}\n`);
    return 1;
  }
}
