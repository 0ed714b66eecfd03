// The headless host's fleet options: `/metrics` (opt-in) and the webhook, from flags
// (`--metrics`, `--metrics-host`, `--metrics-port`, `--webhook-url`) or their variables
// (`RUNNER_TRAY_METRICS=1`, `RUNNER_TRAY_METRICS_HOST`, `RUNNER_TRAY_METRICS_PORT`,
// `RUNNER_TRAY_WEBHOOK_URL`); a flag beats its variable.
import { z } from 'zod';
import { isLoopbackHost, plainHttpProblem } from '../../../shared/transport-security';

export const DEFAULT_METRICS_PORT = 9464;

export interface FleetOptions {
  /** Set when /metrics is asked for. */
  metrics: { host: string; port: number; loopback: boolean } | null;
  /** The webhook's address (a secret: only its origin may be shown). */
  webhookUrl: string | null;
}

const On = z
  .string()
  .trim()
  .transform((v) => /^(1|true|yes|on)$/i.test(v));
const Port = z.coerce.number().int().min(0).max(65535);
const Host = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9.:[\]-]{1,255}$/);
const WebhookUrl = z
  .string()
  .trim()
  .refine((v) => URL.canParse(v) && plainHttpProblem(v) === null, { error: 'must be an https:// address (http:// only on this machine)' })
  .refine((v) => new URL(v).username === '' && new URL(v).password === '', { error: 'must not carry a user or password' });

type Source = { value: string; name: string } | undefined;
type Input = { booleans: ReadonlySet<string>; values: ReadonlyMap<string, string>; env: Readonly<Record<string, string | undefined>> };

function from(input: Input, flag: string, variable: string): Source {
  const value = input.values.get(flag);
  if (value !== undefined) return { value, name: flag };
  const env = input.env[variable];
  return env === undefined || env.trim() === '' ? undefined : { value: env, name: variable };
}

/** The fleet options, or the message that names the flag or variable that is wrong (never the webhook's value). */
export function resolveFleetOptions(input: Input): { ok: true; options: FleetOptions } | { ok: false; message: string } {
  const port = from(input, '--metrics-port', 'RUNNER_TRAY_METRICS_PORT');
  const host = from(input, '--metrics-host', 'RUNNER_TRAY_METRICS_HOST');
  const env = input.env.RUNNER_TRAY_METRICS;
  const asked = input.booleans.has('--metrics') || (env !== undefined && On.parse(env));
  let metrics: FleetOptions['metrics'] = null;
  if (asked || port !== undefined || host !== undefined) {
    const p = port === undefined ? { success: true as const, data: DEFAULT_METRICS_PORT } : Port.safeParse(port.value.trim() === '' ? 'x' : port.value);
    if (!p.success) return { ok: false, message: `${port!.name} must be an integer from 0 to 65535.` };
    const h = host === undefined ? { success: true as const, data: '127.0.0.1' } : Host.safeParse(host.value);
    if (!h.success) return { ok: false, message: `${host!.name} must be an address to listen on, e.g. 127.0.0.1.` };
    metrics = { host: h.data, port: p.data, loopback: isLoopbackHost(h.data) };
  }
  const hook = from(input, '--webhook-url', 'RUNNER_TRAY_WEBHOOK_URL');
  let webhookUrl: string | null = null;
  if (hook !== undefined) {
    const checked = WebhookUrl.safeParse(hook.value);
    if (!checked.success) return { ok: false, message: `${hook.name} ${checked.error.issues[0]?.message ?? 'is not valid'}.` };
    webhookUrl = checked.data;
  }
  return { ok: true, options: { metrics, webhookUrl } };
}
