// The lending sources of a host without a window: idle time from the login session's idle
// hint (Linux's logind), the power supply from /sys/class/power_supply (Linux) or
// `pmset -g batt` (macOS). Whatever the OS does not give is "not available", never a guess.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CommandRunner } from '../exec/process-runner';
import type { IdleSource, PowerReading, PowerSource } from './sources';

const ASK_MS = 2_000;

const LoginctlSchema = z.object({
  IdleHint: z.enum(['yes', 'no']),
  /** Microseconds since the epoch at which the session went idle (0: never). */
  IdleSinceHint: z.coerce.number().int().min(0),
});

/** Seconds the session has been idle at `nowMs`, from `loginctl show-session -p IdleHint -p IdleSinceHint`; null when it does not fit. */
export function parseLoginctl(text: string, nowMs: number): number | null {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) fields[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  const parsed = LoginctlSchema.safeParse(fields);
  if (!parsed.success) return null;
  if (parsed.data.IdleHint === 'no') return 0;
  if (parsed.data.IdleSinceHint === 0) return null;
  return Math.max(0, Math.floor((nowMs - parsed.data.IdleSinceHint / 1000) / 1000));
}

/** Idle time of the login session the host runs in (`XDG_SESSION_ID`); none (a service, macOS, Windows): not available. */
export function loginctlIdleSource(
  runner: CommandRunner,
  env: Readonly<Record<string, string | undefined>>,
  now: () => number,
  platform = process.platform,
): IdleSource {
  const session = env.XDG_SESSION_ID;
  return {
    async idleSeconds() {
      if (platform !== 'linux' || !session || !/^[\w-]+$/.test(session)) return null;
      const out = await runner.run('loginctl', ['show-session', session, '-p', 'IdleHint', '-p', 'IdleSinceHint'], { timeoutMs: ASK_MS });
      return out.code === 0 ? parseLoginctl(out.stdout, now()) : null;
    },
  };
}

const SupplySchema = z.object({
  type: z.enum(['Mains', 'Battery', 'USB', 'UPS', 'Wireless', 'BrickID', 'USB_PD', 'USB_C']).catch('USB'),
  online: z.enum(['0', '1']).optional(),
  capacity: z.coerce.number().int().min(0).max(100).optional(),
  status: z.string().optional(),
});
type Supply = z.infer<typeof SupplySchema>;

async function readSupply(dir: string): Promise<Supply | null> {
  const field = async (name: string) => (await readFile(path.join(dir, name), 'utf8').catch(() => null))?.trim();
  const raw = { type: await field('type'), online: await field('online'), capacity: await field('capacity'), status: await field('status') };
  const parsed = SupplySchema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined && v !== '')));
  return parsed.success ? parsed.data : null;
}

/** The power supply from a `/sys/class/power_supply` folder; null without a battery (a desktop, a server). */
export async function readSysPower(root = '/sys/class/power_supply'): Promise<PowerReading | null> {
  const names = await readdir(root).catch(() => [] as string[]);
  const supplies = (await Promise.all(names.sort().map((name) => readSupply(path.join(root, name))))).filter((s): s is Supply => s !== null);
  const battery = supplies.find((s) => s.type === 'Battery');
  if (!battery) return null;
  const mains = supplies.filter((s) => s.type === 'Mains' && s.online !== undefined);
  const onBattery = mains.length > 0 ? !mains.some((s) => s.online === '1') : battery.status === 'Discharging';
  return { onBattery, percent: battery.capacity ?? null };
}

/** `pmset -g batt`: "Now drawing from 'Battery Power'" and " -InternalBattery-0 (id=…)	34%; discharging; …". */
export function parsePmset(text: string): PowerReading | null {
  const source = /Now drawing from '([^']+)'/.exec(text)?.[1];
  const percent = /\t(\d{1,3})%;/.exec(text)?.[1] ?? /\s(\d{1,3})%;/.exec(text)?.[1];
  const parsed = z.object({ source: z.string(), percent: z.coerce.number().int().min(0).max(100).optional() }).safeParse({ source, percent });
  if (!parsed.success) return null;
  if (parsed.data.percent === undefined && !parsed.data.source.includes('Battery')) return null;
  return { onBattery: parsed.data.source === 'Battery Power', percent: parsed.data.percent ?? null };
}

/** The power supply where the OS tells it without a window; elsewhere (Windows): mains, as far as lending knows. */
export function headlessPowerSource(runner: CommandRunner, platform = process.platform, sysRoot?: string): PowerSource {
  return {
    async read() {
      if (platform === 'linux') return readSysPower(sysRoot);
      if (platform === 'darwin') {
        const out = await runner.run('pmset', ['-g', 'batt'], { timeoutMs: ASK_MS });
        return out.code === 0 ? parsePmset(out.stdout) : null;
      }
      return null;
    },
  };
}
