#!/usr/bin/env node
// A claude stand-in for `npm run bench` that says when its process began and when it is
// about to exit, in its result (Unix ms, sub-ms precision): `spawned=<ms> exiting=<ms>`.
// `performance.timeOrigin` is the moment this process began, so "enqueue → spawned" is
// measured to the runtime process itself. The prompt's `ms=<n>` makes it work that long.
if (process.argv.includes('--version')) {
  process.stdout.write('2.1.197 (Claude Code)\n');
  process.exit(0);
}
const spawned = performance.timeOrigin;
const { readFileSync } = await import('node:fs');
const prompt = readFileSync(0, 'utf8');
const ms = Number(/ms=(\d+)/.exec(prompt)?.[1] ?? 0);
if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
const exiting = performance.timeOrigin + performance.now();
const result = {
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: `spawned=${spawned.toFixed(3)} exiting=${exiting.toFixed(3)}`,
  session_id: '11111111-2222-3333-4444-555555555555',
  usage: { input_tokens: 1, output_tokens: 1 },
  permission_denials: [],
};
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
