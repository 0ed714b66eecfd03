// The demo's Sechroom plane beside the Rost one: a bearer minted by the emulator's Work
// Layer, a git checkout whose origin is a local bare repository (task branches are pushed
// there), and a fleet config of one instance; the host gets them as `--fleet-config` with
// SECHROOM_BASE_URL, SECHROOM_TENANT and SECHROOM_TOKEN.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * How long the demo's bearer lives. SECHROOM_TOKEN is a pre-minted bearer the host never
 * refreshes, and the Work Layer's default (15 min) ended every demo's Sechroom plane a
 * quarter of an hour in; a demo that runs longer than this is restarted with a new one.
 */
export const DEMO_TOKEN_TTL_MS = 30 * 24 * 3600_000;

/** Asks the emulator at `controlPlane` for a Sechroom bearer living DEMO_TOKEN_TTL_MS. */
export async function mintDemoToken(controlPlane, fetchImpl = fetch) {
  const res = await fetchImpl(`${controlPlane}/_emulator/sechroom/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ttl_ms: DEMO_TOKEN_TTL_MS }),
  });
  if (!res.ok) throw new Error(`the emulator did not mint a Sechroom token (HTTP ${res.status})`);
  const body = await res.json();
  if (typeof body?.access_token !== 'string' || typeof body?.tenant !== 'string')
    throw new Error('the emulator minted a Sechroom token without access_token or tenant');
  return { token: body.access_token, tenant: body.tenant };
}

/** The local origin and checkout the demo's tasks deliver to (made once per demo folder). */
function ensureCheckout(dir) {
  const origin = path.join(dir, 'origin.git');
  const checkout = path.join(dir, 'checkout');
  const git = (cwd, ...args) => {
    const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr}`);
  };
  if (existsSync(checkout)) return checkout;
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  git(dir, 'clone', '--quiet', origin, checkout);
  git(checkout, 'config', 'user.name', 'Runner Tray demo');
  git(checkout, 'config', 'user.email', 'demo@runner-tray.invalid');
  git(checkout, 'checkout', '--quiet', '-b', 'main');
  writeFileSync(path.join(checkout, 'README.md'), '# acme billing (demo)\n');
  git(checkout, 'add', 'README.md');
  git(checkout, 'commit', '--quiet', '-m', 'demo start');
  git(checkout, 'push', '--quiet', 'origin', 'main');
  return checkout;
}

/**
 * The host's flags and environment for the Sechroom plane. With `fakeRuntime` its turns run
 * on the scripted codex app-server, which writes a file and closes out.
 */
export async function sechroomPlane({ root, demoDir, controlPlane, fakeRuntime }) {
  const dir = path.join(demoDir, 'sechroom');
  const checkout = ensureCheckout(dir);
  const fleet = path.join(dir, 'fleet.json');
  writeFileSync(fleet, `${JSON.stringify({ instances: [{ instanceKey: 'demo-codex', root: checkout, pollInterval: 2 }] }, null, 2)}\n`);
  const minted = await mintDemoToken(controlPlane);
  const stub = fakeRuntime
    ? {
        CODEX_BIN: path.join(root, 'tests/stubs/codex-app-server-stub.mjs'),
        CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'closeout-on-nudge', writeFile: { name: 'CHANGES.md', text: 'Done by the demo stand-in.\n' } }),
      }
    : {};
  return {
    // The demo has no GitHub: branches are pushed to the local origin, no pull request is raised.
    args: ['--fleet-config', fleet, '--no-pr'],
    env: { SECHROOM_BASE_URL: `${controlPlane}/sechroom`, SECHROOM_TENANT: minted.tenant, SECHROOM_TOKEN: minted.token, ...stub },
  };
}
