#!/usr/bin/env node
// A claude stand-in for the window's update bench: works `ms=<n>` ms (from the prompt) and
// prints a line of progress on stderr every `every=<n>` ms meanwhile (default 20), as a
// busy runtime does, so the window's Turns view gets live output to show. Its result says
// how many lines it printed.
if (process.argv.includes('--version')) {
  process.stdout.write('2.1.197 (Claude Code)\n');
  process.exit(0);
}
const { readFileSync } = await import('node:fs');
const prompt = readFileSync(0, 'utf8');
const ms = Number(/ms=(\d+)/.exec(prompt)?.[1] ?? 0);
const every = Number(/every=(\d+)/.exec(prompt)?.[1] ?? 20);
const started = performance.now();
let lines = 0;
await new Promise((resolve) => {
  const timer = setInterval(() => {
    lines += 1;
    process.stderr.write(`step ${lines}: read src/module-${lines % 37}.ts, ${(performance.now() - started).toFixed(0)} ms in, editing line ${lines * 7}\n`);
    if (performance.now() - started >= ms) {
      clearInterval(timer);
      resolve();
    }
  }, every);
});
const result = {
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: `printed ${lines} lines`,
  session_id: '11111111-2222-3333-4444-555555555555',
  usage: { input_tokens: 1, output_tokens: 1 },
  permission_denials: [],
};
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
