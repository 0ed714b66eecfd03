import { expect, it } from 'vitest';
import { judgeLanes } from '../../../main/headless/dry-run';

const ready = { installed: true, signedIn: true, ready: true } as const;

it('judges each lane against the runtimes: setting, install, sign-in, readiness, and a sandbox where the lane requires one', () => {
  const runtimes = { claude: { ...ready, isolation: 'environment' as const }, codex: { installed: true, signedIn: false } };
  const lanes = [
    { runtime: 'claude', queued: 2 },
    { runtime: 'claude', queued: 1, sandbox: 'required' as const },
    { runtime: 'codex', queued: 1 },
    { runtime: 'auto', queued: 3 },
    { runtime: 'gemini', queued: 1 },
  ];
  expect(judgeLanes(lanes, runtimes, 'auto')).toEqual([
    { runtime: 'claude', queued: 2, runnable: true, why: 'runs on claude (environment)' },
    { runtime: 'claude', queued: 1, runnable: false, why: 'no OS sandbox for claude here (environment)' },
    { runtime: 'codex', queued: 1, runnable: false, why: 'codex is not signed in' },
    { runtime: 'auto', queued: 3, runnable: true, why: 'runs on claude (environment)' },
    { runtime: 'gemini', queued: 1, runnable: false, why: 'this runner has no gemini runtime' },
  ]);
  // The runtime setting narrows what may run: claude work is not for a codex-only runner.
  expect(judgeLanes([{ runtime: 'claude', queued: 1 }], runtimes, 'codex')[0]).toMatchObject({ runnable: false, why: 'the runtime setting is codex' });
  const sandboxed = { claude: { ...ready, isolation: 'bubblewrap' as const }, codex: { installed: false } };
  expect(judgeLanes([{ runtime: 'auto', queued: 1, sandbox: 'required' }], sandboxed, 'auto')[0]).toMatchObject({
    runnable: true,
    why: 'runs on claude (bubblewrap)',
  });
});
