import { z } from 'zod';
import type { Result } from './result';
import { command, NoInput } from './command';
import { operatorCommands, operatorEvents } from './operator-contract';
import { workLayerCommands } from './work-layer-contract';
import { sechroomProfileCommands } from './sechroom-profile-contract';

import { OptionalProfileRefSchema, ProfileAddInputSchema, ProfileIdSchema, ProfileNameSchema, ProfileSummarySchema, withProfile } from './profiles';
import { PairingStateSchema, RunnerSnapshotSchema, RuntimeInfoSchema } from './runner';
import { settingsSchema, SETTING_KEYS } from './settings';
import { RunnerStatusSchema } from './status';
import { CapacitySampleSchema } from './telemetry';
import { TranscriptUpdateSchema, TranscriptViewSchema } from './transcript';
import { TurnsPageInputSchema, TurnsPageSchema, TurnsUpdateSchema, TurnViewSchema } from './turns';
import { UpdateNoticeSchema } from './updates';
import { UsageNoticeSchema, UsageSnapshotSchema } from './usage';
import { LendingViewSchema } from './lending';

/**
 * The one contract between the UI and the host. Every command the UI may invoke and
 * every event the core pushes is named here and only here; main, preload, the renderer
 * and the headless WebSocket bridge are all typed from it. Adding a command is one
 * entry here plus one handler in main/core/commands.
 */

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  mode: z.enum(['electron', 'headless']),
  platform: z.string(),
  arch: z.string(),
  hostname: z.string(),
  runtimeVersions: z.object({ node: z.string(), electron: z.string().nullable(), chrome: z.string().nullable() }),
  startedAt: z.string(),
  uptimeMs: z.number().int().min(0),
  dataDir: z.string(),
  logDir: z.string(),
  /** A newer version to install, once an update check found one (absent from older hosts). */
  update: UpdateNoticeSchema.nullable().optional(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

export const LogLevelSchema = z.enum(['debug', 'info', 'warn', 'error']);
export type LogLevel = z.infer<typeof LogLevelSchema>;

export const LogEntrySchema = z.object({
  seq: z.number().int(),
  time: z.string(),
  level: LogLevelSchema,
  msg: z.string(),
  component: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type LogEntry = z.infer<typeof LogEntrySchema>;

export const SettingsViewSchema = z.object({
  /** Whose settings: the profile's own settings merged over the host-wide ones (absent from older hosts: `default`). */
  profile: ProfileIdSchema.optional(),
  settings: settingsSchema,
  /** Settings whose effective value comes from an env variable or flag (headless), with the source. */
  overridden: z.array(z.object({ key: z.enum(SETTING_KEYS), source: z.string() })),
  /** Problems met loading the settings file, one line each. */
  warnings: z.array(z.string()),
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

const PauseInputShape = {
  minutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .nullable(),
  note: z.string().max(500).optional(),
};

export const commands = {
  'app:info': command(NoInput, AppInfoSchema),
  /**
   * Desktop only: open an address of the control plane (pairing, sign-in, a confirmation)
   * in the operator's browser. Refused for any other origin, and headless.
   */
  'app:open-external': command(z.object({ url: z.string().min(1).max(2000) }).strict(), z.null()),
  /** Desktop only: show the logs folder in the file manager. */
  'app:open-logs': command(NoInput, z.null()),
  /**
   * The redacted diagnostics zip. The desktop asks where to save it (savedTo: the path, or
   * null when canceled); elsewhere the answer carries the zip for a download.
   */
  'app:diagnostics': command(NoInput, z.object({ fileName: z.string(), zipBase64: z.string().nullable(), savedTo: z.string().nullable() })),
  /**
   * Per-profile commands take an optional `profile` (a profile id); without it they act on
   * the `default` profile, which is what a single-runner host had.
   */
  'runner:status': command(OptionalProfileRefSchema, RunnerStatusSchema),
  'runner:snapshot': command(OptionalProfileRefSchema, RunnerSnapshotSchema),
  'pairing:start': command(OptionalProfileRefSchema, PairingStateSchema),
  'pairing:cancel': command(OptionalProfileRefSchema, z.null()),
  /** Makes a try that waits for its time (pairing or a state-file takeover the control plane could not take) at once. */
  'pairing:retry-now': command(OptionalProfileRefSchema, PairingStateSchema),
  /** Pair with a code an operator got elsewhere (the control plane's web page): the seed's `--user-code`. */
  'pairing:start-with-code': command(withProfile({ code: z.string().trim().min(1).max(64) }), PairingStateSchema),
  /** Take over an existing `rost runner serve` state file (the secret moves to the secret store). */
  'runner:import': command(withProfile({ file: z.string().min(1).max(4096) }), z.object({ runnerId: z.string(), notes: z.array(z.string()) })),
  'runner:unpair': command(withProfile({ force: z.boolean().default(false) }), z.null()),
  /** minutes: null pauses until resumed. The pause (and its note) survives restarts. */
  'runner:pause': command(withProfile(PauseInputShape), RunnerSnapshotSchema),
  'runner:resume': command(OptionalProfileRefSchema, RunnerSnapshotSchema),
  /** Pauses every profile (the tray's "Pause all"); answers with every profile after it. */
  'runner:pause-all': command(z.object(PauseInputShape).strict(), z.array(ProfileSummarySchema)),
  'runner:resume-all': command(NoInput, z.array(ProfileSummarySchema)),
  /** Every profile with its status, in the order they were added (`default` first). */
  'profiles:list': command(NoInput, z.array(ProfileSummarySchema)),
  /** A new, unpaired profile; its settings start as the default profile's (another control plane URL if given). */
  'profiles:add': command(ProfileAddInputSchema, ProfileSummarySchema),
  'profiles:rename': command(z.object({ profile: ProfileIdSchema, name: ProfileNameSchema }).strict(), ProfileSummarySchema),
  /** Removes an unpaired profile and its files (unpair it first). The `default` profile stays. */
  'profiles:remove': command(z.object({ profile: ProfileIdSchema }).strict(), z.null()),
  /**
   * The one quit policy. `after-turns`: take no new work, quit when the running turns
   * finish (at most the quitDrainMs setting, then they are canceled). `now`: cancel them
   * and quit (their results are still reported). `cancel`: call a waiting quit off.
   * Answers at once with the status; the host then stops on its own.
   */
  'runner:quit': command(z.object({ mode: z.enum(['after-turns', 'now', 'cancel']) }).strict(), RunnerStatusSchema),
  'runtimes:refresh': command(NoInput, z.object({ claude: RuntimeInfoSchema, codex: RuntimeInfoSchema })),
  'telemetry:history': command(NoInput, z.array(CapacitySampleSchema)),
  /** The running turns and a window of the history (newest 100 by default) with its total; rows carry no tail or summary. */
  'turns:list': command(TurnsPageInputSchema, TurnsPageSchema),
  /** One turn's full record (output tail, summary), running or in the history; null when it is not kept. */
  'turns:detail': command(z.object({ id: z.string().min(1).max(200) }).strict(), TurnViewSchema.nullable()),
  'turns:cancel': command(z.object({ id: z.string().min(1).max(200) }).strict(), z.null()),
  /** The newest lines of a turn's live transcript (running or finished; the rest is on disk); null when none was kept. */
  'turns:transcript': command(z.object({ id: z.string().min(1).max(200) }).strict(), TranscriptViewSchema.nullable()),
  'settings:get': command(OptionalProfileRefSchema, SettingsViewSchema),
  /**
   * Any subset of the settings; validated by the core with the shared schema's messages.
   * `profile` names whose profile settings change (default `default`); host-wide keys change for all.
   */
  'settings:update': command(z.object({ profile: ProfileIdSchema.optional() }).catchall(z.unknown()), SettingsViewSchema),
  /**
   * A one-time value for `confirmWidening` in settings:update, which a change that widens what
   * a turn can reach (`useOwnAgentConfig` on, more `runtimeEnvAllow` names) needs. Only a
   * window session gets one: a script (Bearer / token file) is refused.
   */
  'settings:widening-challenge': command(NoInput, z.object({ nonce: z.string() })),
  'log:recent': command(
    z
      .object({ limit: z.number().int().min(1).max(1000).optional() })
      .strict()
      .optional(),
    z.array(LogEntrySchema),
  ),
  /** The lent model accounts: windows, this runner's tokens and cost, and claim admission. */
  'usage:get': command(NoInput, UsageSnapshotSchema),
  /** The lending terms now: which hold new work back (with when each lets go), whether the operator is active, the turn cap. */
  'lending:get': command(NoInput, LendingViewSchema),
  ...operatorCommands,
  ...workLayerCommands,
  ...sechroomProfileCommands,
} as const;

export const events = {
  /** One profile's status changed: `profile` says whose (this host always sets it; absent means `default`). */
  'runner:status': RunnerStatusSchema.and(z.object({ profile: ProfileIdSchema.optional() })),
  /** One profile's snapshot; its `profile` says whose (always set by this host). */
  'runner:snapshot': RunnerSnapshotSchema,
  /** The profiles or any of their statuses changed: the whole list, as `profiles:list` answers. */
  'profiles:changed': z.array(ProfileSummarySchema),
  'telemetry:sample': CapacitySampleSchema,
  'turns:update': TurnsUpdateSchema,
  /** New and changed lines of running turns' transcripts, one entry per turn (batched per event window). */
  'turns:transcript': z.array(TranscriptUpdateSchema),
  /** A moment worth a notification that no state carries by itself (the breaker pausing a runtime). */
  'runner:notice': z.object({ kind: z.enum(['runtime-paused']), message: z.string() }),
  'log:entries': z.array(LogEntrySchema),
  /** After a change of the effective settings, from any window or tab (same shape as settings:get). */
  'settings:changed': SettingsViewSchema,
  /** After any change of the usage accounts or their admission. */
  'usage:update': UsageSnapshotSchema,
  /** A threshold crossed (percent left), an account limited, or recovered (the tray notifies). */
  'usage:notice': UsageNoticeSchema,
  /** After any change of the lending holds or of whether the operator is active (same shape as lending:get). */
  'lending:update': LendingViewSchema,
  /** An update check found a newer version (app:info carries it from then on). */
  'app:update': UpdateNoticeSchema,
  ...operatorEvents,
} as const;

export type Commands = typeof commands;
export type CommandName = keyof Commands;
export type CommandInput<K extends CommandName> = z.input<Commands[K]['input']>;
export type CommandOutput<K extends CommandName> = z.output<Commands[K]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<K extends EventName> = z.output<Events[K]>;
export type HostEvent = { [K in EventName]: { event: K; payload: EventPayload<K> } }[EventName];

export const COMMAND_NAMES = Object.keys(commands) as CommandName[];

export function isCommandName(name: unknown): name is CommandName {
  return typeof name === 'string' && Object.hasOwn(commands, name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.hasOwn(events, name);
}

/** The single IPC / WebSocket channel that carries batches of events from the host. */
export const EVENT_CHANNEL = 'host:events';

export const HostEventBatchSchema = z.array(z.object({ event: z.string(), payload: z.unknown() }));

/** Parses one event from the wire; unknown names and bad payloads are dropped by callers. */
export function parseHostEvent(raw: { event: string; payload: unknown }): HostEvent | null {
  if (!isEventName(raw.event)) return null;
  const parsed = events[raw.event].safeParse(raw.payload);
  return parsed.success ? ({ event: raw.event, payload: parsed.data } as HostEvent) : null;
}

type Invoker<K extends CommandName> =
  undefined extends CommandInput<K>
    ? (input?: CommandInput<K>) => Promise<Result<CommandOutput<K>>>
    : (input: CommandInput<K>) => Promise<Result<CommandOutput<K>>>;

/** What preload exposes as `window.runnerTray`: one method per command, plus subscribe. */
export type RunnerTrayApi = { readonly [K in CommandName]: Invoker<K> } & {
  readonly subscribe: <E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) => () => void;
};

/** WebSocket frames of the headless bridge (same contract, other transport). */
export const WsClientFrameSchema = z.object({
  id: z.number().int().min(0),
  command: z.string().max(100),
  input: z.unknown().optional(),
});

export const WsServerFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('result'), id: z.number().int(), result: z.unknown() }),
  z.object({ type: z.literal('events'), events: HostEventBatchSchema }),
  /** One of the first view's answers, pushed unasked (see shared/first-view.ts). */
  z.object({ type: z.literal('first'), command: z.string(), input: z.unknown(), result: z.unknown() }),
]);
export type WsServerFrame = z.infer<typeof WsServerFrameSchema>;
