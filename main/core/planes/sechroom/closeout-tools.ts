import { z } from 'zod';
import type { Verdict } from '../../../../shared/protocol/sechroom';
import { describeZodError } from '../../../../shared/result';
import type { DynamicToolSet } from '../../exec/codex-app-server/dynamic-tools';

/*
 * The two dynamic tools a Sechroom turn registers with `thread/start` (seed B8): the model's
 * closeout and its phase signals, with the seed's names, descriptions and JSON schemas; the
 * parsing of their arguments; the closeout nudge; and the closeout → verdict mapping (seed B6.6).
 * The one definition of them: the app-server driver gets them through `sechroomToolSet`.
 */

export const CLOSEOUT_TOOL = 'sechroom_closeout';
export const LIFECYCLE_TOOL = 'sechroom_lifecycle_signal';
export const TERMINAL_STATUSES = ['completed', 'needs_approval', 'error', 'cancelled'] as const;

/** A dynamic tool as the app-server's `thread/start.dynamicTools` takes it. */
export interface DynamicToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What a tool call answers; the driver wraps it (`{success, contentItems:[{type:"inputText", text}]}`). */
export interface DynamicToolResult {
  success: boolean;
  text: string;
}

/** The port the app-server driver calls for every `item/tool/call` of a turn. */
export interface DynamicToolHost {
  readonly definitions: readonly DynamicToolDefinition[];
  call(name: string, args: unknown): DynamicToolResult;
}

export const SECHROOM_TOOL_DEFINITIONS: readonly DynamicToolDefinition[] = [
  {
    name: CLOSEOUT_TOOL,
    description:
      "Submit the task's terminal closeout. REQUIRED before ending the turn: call with the honest terminal_status, a summary of what was done, and evidence (files changed, tests run, checks).",
    inputSchema: {
      type: 'object',
      properties: {
        terminal_status: { type: 'string', enum: [...TERMINAL_STATUSES] },
        summary: { type: 'string' },
        evidence: { type: 'array', items: { type: 'string' } },
      },
      required: ['terminal_status', 'summary'],
    },
  },
  {
    name: LIFECYCLE_TOOL,
    description: 'Report phase progress: call with phase (start|work|verify|closeout) and status (started|completed|skipped|blocked) at each phase boundary.',
    inputSchema: {
      type: 'object',
      properties: { phase: { type: 'string' }, status: { type: 'string' }, summary: { type: 'string' } },
      required: ['phase', 'status', 'summary'],
    },
  },
];

const MAX_SUMMARY = 64 * 1024;
const MAX_EVIDENCE = 200;

/**
 * `terminal_status` is any short word: the mapping, not the schema, decides (an unknown status
 * is a soft-fail, as in the seed). Unlike the seed, a call without one is refused, not taken
 * as `completed` (= pass), and the model is told why so it can call again.
 */
export const CloseoutArgsSchema = z.object({
  terminal_status: z.string().trim().toLowerCase().min(1).max(60),
  summary: z.string().max(MAX_SUMMARY),
  evidence: z.array(z.coerce.string().max(4000)).max(MAX_EVIDENCE).optional(),
});
export type CloseoutPacket = z.infer<typeof CloseoutArgsSchema>;

export const LifecycleSignalArgsSchema = z.object({
  phase: z.string().trim().min(1).max(60),
  status: z.string().trim().min(1).max(60),
  summary: z.string().max(4000).default(''),
});
export type LifecycleSignal = z.infer<typeof LifecycleSignalArgsSchema>;

/** `verdictFor` [seed B6.6]: completed → pass; needs_approval/cancelled/canceled → blocked; anything else or none → soft-fail. */
export function verdictFor(terminalStatus: string | null | undefined): Verdict {
  switch (terminalStatus) {
    case 'completed':
      return 'pass';
    case 'needs_approval':
    case 'cancelled':
    case 'canceled':
      return 'blocked';
    default:
      return 'soft-fail';
  }
}

/** The completion `text` (`closeoutText`, seed B6.7), with the last agent message the seed never fills in (B15.6). */
export function closeoutText(packet: CloseoutPacket | null, lastAgentMessage: string): string {
  if (!packet) {
    return `Driven codex run ended without a sechroom_closeout packet (soft-fail). Last agent message:\n\n${lastAgentMessage || '(none)'}`;
  }
  const evidence = packet.evidence?.length ? `\n\nEvidence:\n${packet.evidence.map((e) => `- ${e}`).join('\n')}` : '';
  return `${packet.summary}${evidence}\n\n(terminal_status: ${packet.terminal_status}; driven by sechroom executor run.)`;
}

/** The completion `title` [seed B6.5]. */
export const closeoutTitle = (taskTitle: string) => `${taskTitle} — driven closeout`;

/**
 * One turn's tool host: keeps the closeout (the last valid call wins, as in the seed) and
 * the phase signals, and tells the owner about each signal as it happens.
 */
export class CloseoutCollector implements DynamicToolHost {
  readonly definitions = SECHROOM_TOOL_DEFINITIONS;
  private packet: CloseoutPacket | null = null;
  private readonly signalList: LifecycleSignal[] = [];
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly onSignal: (signal: LifecycleSignal) => void = () => {}) {}

  get closeout(): CloseoutPacket | null {
    return this.packet;
  }

  get signals(): readonly LifecycleSignal[] {
    return this.signalList;
  }

  /** Resolves once a closeout has been accepted (for a driver's closeout nudge: B15.7). */
  closeoutReceived(): Promise<void> {
    if (this.packet) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  call(name: string, args: unknown): DynamicToolResult {
    if (name === CLOSEOUT_TOOL) {
      const parsed = CloseoutArgsSchema.safeParse(args ?? {});
      if (!parsed.success)
        return { success: false, text: `closeout refused: ${describeZodError(parsed.error)}. Call ${CLOSEOUT_TOOL} again with terminal_status and summary.` };
      this.packet = parsed.data;
      this.waiters.splice(0).forEach((resolve) => resolve());
      return { success: true, text: 'closeout accepted' };
    }
    if (name === LIFECYCLE_TOOL) {
      const parsed = LifecycleSignalArgsSchema.safeParse(args ?? {});
      if (!parsed.success) return { success: false, text: `signal refused: ${describeZodError(parsed.error)}` };
      this.signalList.push(parsed.data);
      this.onSignal(parsed.data);
      return { success: true, text: 'ok' };
    }
    return { success: false, text: 'unsupported tool' };
  }
}

/** The seed's closeout nudge (B8), sent once when a turn ends without `sechroom_closeout`. */
export const SECHROOM_CLOSEOUT_NUDGE =
  'The turn ended without a sechroom_closeout call. Call sechroom_closeout NOW with terminal_status, summary, and evidence.';

/** A turn's tool host as the app-server driver's tool set, with the seed's nudge for the closeout. */
export function sechroomToolSet(host: DynamicToolHost): DynamicToolSet {
  return {
    tools: host.definitions.map((d) => ({ ...d, handle: (args: unknown) => host.call(d.name, args) })),
    closeout: { tool: CLOSEOUT_TOOL, nudge: SECHROOM_CLOSEOUT_NUDGE },
  };
}
