#!/usr/bin/env node
// A stand-in for the claude and codex CLIs, for `npm run demo -- --fake-runtime` and the
// screenshots: it "works" for a while, printing progress lines the window shows as the
// output tail, then answers in the real CLI's output format with token usage.
//
//   --version            prints a version, as detection asks
//   prompt `demo:ms=N`   works for N ms (default: 8–25 s at random, or DEMO_RUNTIME_MS)
//   prompt `demo:fail`   ends with an error (about one turn in six fails anyway, unless
//                        DEMO_RUNTIME_NO_FAIL=1), so failures are part of the demo too
// It reads only its prompt (stdin), writes nothing and calls no model.
const argv = process.argv.slice(2);
if (argv.includes('--version')) {
  process.stdout.write(argv[0] === 'exec' || process.env.DEMO_RUNTIME_KIND === 'codex' ? 'codex-cli 0.171.0\n' : '2.1.197 (Claude Code)\n');
  process.exit(0);
}
const codex = argv[0] === 'exec';
// The runner sends the prompt on stdin (never argv), as to the real CLIs.
const { readFileSync } = await import('node:fs');
const prompt = readFileSync(0, 'utf8');
const fixedMs = Number(/demo:ms=(\d+)/.exec(prompt)?.[1] ?? process.env.DEMO_RUNTIME_MS ?? Number.NaN);
const durationMs = Number.isFinite(fixedMs) ? fixedMs : 8_000 + Math.floor(Math.random() * 17_000);
const fail = prompt.includes('demo:fail') || (process.env.DEMO_RUNTIME_NO_FAIL !== '1' && !prompt.includes('demo:') && Math.random() < 1 / 6);

const STEPS = [
  'Reading the context packet and the charter for this seat',
  'Listing the files touched on the branch since the last review',
  'Reading src/export/invoice-csv.ts (212 lines)',
  'Reading tests/export/invoice-csv.test.ts (148 lines)',
  'Running the export tests in a scratch checkout',
  '  ✓ exports one invoice per row (12 ms)',
  '  ✓ quotes fields with commas (3 ms)',
  '  ✗ multi-currency totals are summed per currency',
  'Comparing the totals with the fixture in tests/fixtures/eur-usd.json',
  'Drafting the answer',
];

process.on('SIGTERM', () => process.exit(143));
process.on('SIGINT', () => process.exit(130));

const started = Date.now();
let step = 0;
if (codex) process.stdout.write(`${JSON.stringify({ type: 'thread.started', thread_id: 'demo-thread-1' })}\n${JSON.stringify({ type: 'turn.started' })}\n`);
const tick = setInterval(
  () => {
    const line = STEPS[step % STEPS.length];
    step++;
    if (codex) process.stdout.write(`${JSON.stringify({ type: 'item.completed', item: { id: `item_${step}`, type: 'reasoning', text: line } })}\n`);
    else process.stdout.write(`${line}\n`);
    if (Date.now() - started >= durationMs) finish();
  },
  Math.min(2500, Math.max(200, Math.floor(durationMs / STEPS.length))),
);

function finish() {
  clearInterval(tick);
  const answer = fail
    ? 'Stopped: the fixture file tests/fixtures/eur-usd.json is missing on this branch.'
    : 'The CSV export sums multi-currency invoices into one total; it should group by currency. The fix is a groupBy before the sum in invoice-csv.ts, and the failing test covers it.';
  const usage = { input_tokens: 18_000 + Math.floor(Math.random() * 20_000), output_tokens: 600 + Math.floor(Math.random() * 1_500) };
  const out = codex
    ? [
        { type: 'item.completed', item: { id: 'answer', type: 'agent_message', text: answer } },
        fail ? { type: 'turn.failed', error: { message: answer } } : { type: 'turn.completed', usage },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n')
    : JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: fail,
        result: answer,
        session_id: '3f8e2d1c-6b5a-4c9d-8e7f-1a2b3c4d5e6f',
        total_cost_usd: Math.round(usage.input_tokens * 0.003 + usage.output_tokens * 0.015) / 1000,
        usage: { ...usage, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        permission_denials: [],
      });
  process.stdout.write(`${out}\n`, () => process.exit(fail ? 1 : 0));
}
