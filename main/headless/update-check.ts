// The headless host's update check (core/updates): started once the host serves, never
// waited for; a newer version is one line in the terminal and a line in the window.
import path from 'node:path';
import { z } from 'zod';
import { systemClock } from '../core/base/ports';
import { nodeFetch } from '../core/connectors/node-fetch';
import type { Core } from '../core/bootstrap';
import { DEFAULT_UPDATE_URL, RegistryUpdateCheck, updateLine } from '../core/updates/registry-update-check';

/** RUNNER_TRAY_UPDATE_URL: another registry document to ask (tests point it at a loopback stub). */
const UpdateUrlSchema = z.url({ protocol: /^https?$/ }).optional();

export function startUpdateCheck(options: {
  core: Pick<Core, 'settings' | 'log' | 'announceUpdate'>;
  pkg: { version: string; productName: string };
  dataDir: string;
  env: Readonly<Record<string, string | undefined>>;
  out: { write(text: string): unknown };
}): RegistryUpdateCheck {
  const { core, pkg } = options;
  const url = UpdateUrlSchema.safeParse(options.env.RUNNER_TRAY_UPDATE_URL?.trim() || undefined);
  const check = new RegistryUpdateCheck({
    currentVersion: pkg.version,
    url: (url.success ? url.data : undefined) ?? DEFAULT_UPDATE_URL,
    fetch: nodeFetch,
    clock: systemClock,
    stateFile: path.join(options.dataDir, 'update-check.json'),
    enabled: () => core.settings.get().updateCheck,
    log: core.log.child('updates'),
    onAvailable: (version) => {
      const line = updateLine(pkg.productName, version, pkg.version);
      options.out.write(`${line}\n`);
      core.announceUpdate({ version, line });
    },
  });
  void check.start().catch((error: unknown) => core.log.debug('the update check failed', { error: String(error) }));
  return check;
}
