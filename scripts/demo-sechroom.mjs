// The demo's Sechroom plane beside the Rost one: a bearer minted by the emulator's Work
// Layer with its refresh token, a git checkout whose origin is a local bare repository (task
// branches are pushed there), and a fleet config of one instance; the host gets them as
// `--fleet-config` with SECHROOM_BASE_URL, SECHROOM_TENANT, SECHROOM_TOKEN and
// SECHROOM_REFRESH_TOKEN.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Asks the emulator at `controlPlane` for a Sechroom bearer of the Work Layer's own lifetime
 * (15 min) and its refresh token: the host refreshes the bearer when it is refused, so the
 * demo's Sechroom plane keeps working however long the demo runs. Bounded by `timeoutMs`.
 */
export async function mintDemoToken(controlPlane, { fetchImpl = fetch, timeoutMs = 30_000 } = {}) {
  let res;
  try {
    res = await fetchImpl(`${controlPlane}/_emulator/sechroom/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const why = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : String(error?.cause?.message ?? error);
    throw new Error(`the emulator did not mint a Sechroom token (${why})`);
  }
  if (!res.ok) throw new Error(`the emulator did not mint a Sechroom token (HTTP ${res.status})`);
  const body = await res.json();
  if (typeof body?.access_token !== 'string' || typeof body?.refresh_token !== 'string' || typeof body?.tenant !== 'string')
    throw new Error('the emulator minted a Sechroom token without access_token, refresh_token or tenant');
  return { token: body.access_token, refreshToken: body.refresh_token, tenant: body.tenant };
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
export async function sechroomPlane({ root, demoDir, controlPlane, fakeRuntime, timeoutMs }) {
  const dir = path.join(demoDir, 'sechroom');
  const checkout = ensureCheckout(dir);
  const fleet = path.join(dir, 'fleet.json');
  writeFileSync(fleet, `${JSON.stringify({ instances: [{ instanceKey: 'demo-codex', root: checkout, pollInterval: 2 }] }, null, 2)}\n`);
  const minted = await mintDemoToken(controlPlane, timeoutMs ? { timeoutMs } : {});
  const stub = fakeRuntime
    ? {
        CODEX_BIN: path.join(root, 'tests/stubs/codex-app-server-stub.mjs'),
        CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'closeout-on-nudge', writeFile: { name: 'CHANGES.md', text: 'Done by the demo stand-in.\n' } }),
      }
    : {};
  return {
    // The demo has no GitHub: branches are pushed to the local origin, no pull request is raised.
    args: ['--fleet-config', fleet, '--no-pr'],
    env: {
      SECHROOM_BASE_URL: `${controlPlane}/sechroom`,
      SECHROOM_TENANT: minted.tenant,
      SECHROOM_TOKEN: minted.token,
      SECHROOM_REFRESH_TOKEN: minted.refreshToken,
      ...stub,
    },
  };
}
