import type { SechroomConfigureInput, SechroomSettingsView } from '../../../../shared/sechroom-profile-contract';
import { FLAG_OF, INSTANCE_DEFAULTS, SANDBOX_MODES, SechroomProfileConfigSchema } from '../../../../shared/sechroom-instance-settings';

/*
 * The Sechroom instance card's form: a text draft of a Sechroom profile's settings, the
 * input `sechroom:configure` takes, and every problem checked with the core's own schema
 * (shared/sechroom-instance-settings.ts) and the seed's messages, by field.
 */

export type SechroomFieldKind = 'text' | 'url' | 'number' | 'list' | 'select' | 'toggle';

export interface SechroomField {
  /** `baseUrl`, `tenant`, `account`, `deliver`, `raisePr`, or `instance.<setting>`. */
  key: string;
  label: string;
  kind: SechroomFieldKind;
  hint: string;
}

const instance = (name: string, label: string, kind: SechroomFieldKind, hint: string): SechroomField => ({
  key: `instance.${name}`,
  label,
  kind,
  hint: `${hint} (${FLAG_OF[name]})`,
});

export const SECHROOM_SECTIONS: readonly { title: string; fields: readonly SechroomField[] }[] = [
  {
    title: 'Work Layer',
    fields: [
      { key: 'baseUrl', label: 'Work Layer URL', kind: 'url', hint: 'The Work Layer base URL, e.g. https://work.example/sechroom (--control-plane).' },
      { key: 'tenant', label: 'Tenant', kind: 'text', hint: 'The tenant header value (--tenant).' },
      { key: 'account', label: 'Account', kind: 'text', hint: 'Whose sign-in this profile keeps (--account).' },
    ],
  },
  {
    title: 'Executor instance',
    fields: [
      instance('instanceKey', 'Instance key', 'text', 'The registration identity'),
      instance('laneId', 'Lane', 'text', 'Affinity lane and completion source; empty: the instance key'),
      instance('connectorId', 'Connector id', 'text', 'The approved connector; empty: none'),
      instance('capabilityKeys', 'Capabilities', 'list', 'Capability keys, separated by commas'),
      instance('relayId', 'Relay', 'text', 'The relay id'),
      instance('root', 'Repository root', 'text', 'The checkout the turns run in'),
      instance('model', 'Model', 'text', 'The codex model; empty: codex’s default'),
      instance('sandbox', 'Sandbox', 'select', 'codex’s sandbox mode'),
      instance('codexBin', 'codex binary', 'text', 'Empty: CODEX_BIN, else the codex found on this machine'),
    ],
  },
  {
    title: 'Timing and concurrency',
    fields: [
      instance('ttlSeconds', 'Advertisement TTL (s)', 'number', 'How long the registration lives without a refresh'),
      instance('refreshAfterSeconds', 'Refresh after (s)', 'number', 'Empty: half the TTL'),
      instance('pollIntervalSeconds', 'Poll interval (s)', 'number', 'How often it asks for a task'),
      instance('heartbeatIntervalSeconds', 'Heartbeat interval (s)', 'number', 'Lease heartbeats, shorter than the 120 s lease'),
      instance('turnTimeoutSeconds', 'Turn timeout (s)', 'number', 'A task’s turn'),
      instance('resumeTurnTimeoutSeconds', 'Resumed turn timeout (s)', 'number', 'A resumed task’s turn'),
      instance('drainTimeoutSeconds', 'Drain timeout (s)', 'number', 'How long stopping waits for a running task'),
      instance('usageReservePercent', 'Usage reserve (%)', 'number', 'Claims stop when the model account has less left'),
    ],
  },
  {
    title: 'Git delivery',
    fields: [
      { key: 'deliver', label: 'Deliver each task on its own branch', kind: 'toggle', hint: 'Off: the changes stay in the root (--no-deliver).' },
      { key: 'raisePr', label: 'Open a pull request', kind: 'toggle', hint: 'Off: the branch is pushed without one (--no-pr).' },
    ],
  },
];

export const SANDBOX_OPTIONS = SANDBOX_MODES;

export type SechroomDraft = Record<string, string | boolean>;

function text(value: unknown): string {
  if (Array.isArray(value)) return value.map(text).join(', ');
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** The form's text from the saved settings, or the seed's defaults for a profile not set yet. */
export function sechroomDraftFrom(config: SechroomSettingsView['config']): SechroomDraft {
  const saved: Record<string, unknown> = config?.instance ?? { ...INSTANCE_DEFAULTS, capabilityKeys: [] };
  const draft: SechroomDraft = {
    baseUrl: config?.baseUrl ?? '',
    tenant: config?.tenant ?? '',
    account: config?.account ?? 'default',
    deliver: config?.deliver ?? true,
    raisePr: config?.raisePr ?? true,
  };
  for (const section of SECHROOM_SECTIONS) {
    for (const field of section.fields) if (field.key.startsWith('instance.')) draft[field.key] = text(saved[field.key.slice('instance.'.length)]);
  }
  return draft;
}

/** What `sechroom:configure` gets (without `profile`): empty optional settings are left out, so the core's defaults apply. */
export function sechroomInputOf(draft: SechroomDraft): Omit<SechroomConfigureInput, 'profile'> {
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(draft)) {
    if (!key.startsWith('instance.')) continue;
    const name = key.slice('instance.'.length);
    const raw = String(value).trim();
    if (name === 'capabilityKeys') settings[name] = raw ? raw.split(',').map((s) => s.trim()) : [];
    else if (raw) settings[name] = raw;
  }
  return {
    baseUrl: String(draft.baseUrl),
    tenant: String(draft.tenant),
    ...(String(draft.account).trim() ? { account: String(draft.account) } : {}),
    instance: settings,
    deliver: draft.deliver === true,
    raisePr: draft.raisePr === true,
  };
}

/** Every problem of the draft by field, in the core's words (the seed's where it has them). */
export function sechroomErrors(draft: SechroomDraft): Record<string, string> {
  const input = sechroomInputOf(draft);
  const parsed = SechroomProfileConfigSchema.safeParse(input);
  if (parsed.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.map(String).join('.');
    if (key.startsWith('instance.capabilityKeys.')) {
      errors['instance.capabilityKeys'] ??= issue.message;
      continue;
    }
    const name = key.slice('instance.'.length);
    const missing = key.startsWith('instance.') && issue.code === 'invalid_type' && (input.instance as Record<string, unknown>)[name] === undefined;
    errors[key] ??= missing ? `${FLAG_OF[name] ?? name} is required` : issue.message;
  }
  return errors;
}

/** The fields whose draft differs from the saved settings. */
export function changedSechroomKeys(draft: SechroomDraft, saved: SechroomDraft): string[] {
  return Object.keys(draft).filter((key) => draft[key] !== saved[key]);
}
