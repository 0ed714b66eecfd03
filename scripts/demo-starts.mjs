#!/usr/bin/env node
// `node scripts/demo-starts.mjs [--count 10] [--burners <n>] [--start-timeout <s>]`: starts the
// demo (`npm run demo -- --headless --fake-runtime`, each time in a fresh demo folder, as a new
// user's first run) `--count` times in a row while the machine is kept busy on purpose
// (`--burners` CPU-bound processes, default two per core), and prints each start's outcome and
// the pass/fail counts. A start passes when the demo says `Demo ready.`, the address the host
// printed answers, and one Ctrl-C stops it with exit 0. Exits 0 only when every start passed.
//
// Every wait is for the thing itself and bounded (--start-timeout, as the demo's own): nothing
// waits a fixed time. It is heavy (the whole machine is busy for the run): run it on purpose.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { exitOf } from './demo-stop.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const USAGE = 'Usage: node scripts/demo-starts.mjs [--count 10] [--burners <n>] [--start-timeout <s>]';
const ADDRESS = /— open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/;

/** The options, or an exit with the usage line. */
function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        count: { type: 'string', default: '10' },
        burners: { type: 'string', default: String(2 * os.availableParallelism()) },
        'start-timeout': { type: 'string', default: '180' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`demo-starts: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const whole = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min || n > 1000) {
      console.error(`demo-starts: --${name} must be an integer from ${min} to 1000\n${USAGE}`);
      process.exit(2);
    }
    return n;
  };
  const timeoutS = Number(values['start-timeout']);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) {
    console.error(`demo-starts: --start-timeout must be a number of seconds above 0\n${USAGE}`);
    process.exit(2);
  }
  return { count: whole('count', 1), burners: whole('burners', 0), timeoutMs: timeoutS * 1000 };
}

/** Resolves with the first match of `pattern` in what `child` printed so far or prints next; rejects when it exits or `timeoutMs` passes. */
function printed(child, output, pattern, what, timeoutMs) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(output.join(''));
      if (match) done(() => resolve(match));
    };
    const done = (then) => {
      clearTimeout(timer);
      child.stdout.off('data', check);
      child.off('exit', onExit);
      then();
    };
    const onExit = (code, signal) => done(() => reject(new Error(`the demo stopped (${signal ?? `exit ${code}`}) before ${what}`)));
    const timer = setTimeout(() => done(() => reject(new Error(`no ${what} within ${timeoutMs / 1000} s`))), timeoutMs);
    child.stdout.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

/** Ctrl-C, and again (stop now) and again (kill everything) while the demo has not exited within `timeoutMs` of each. */
async function stopDemo(child, timeoutMs) {
  for (let press = 1; press <= 3; press++) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    child.kill('SIGINT');
    const exited = await Promise.race([exitOf(child), new Promise((resolve) => setTimeout(() => resolve(null), timeoutMs))]);
    if (exited) return { ...exited, presses: press };
  }
  return { ...(await exitOf(child)), presses: 3 };
}

/** One start, from a fresh demo folder: ready, the page answers, one Ctrl-C stops it with 0. */
async function oneStart(timeoutMs) {
  const demoDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-demo-starts-'));
  const started = Date.now();
  const args = ['scripts/demo.mjs', '--headless', '--fake-runtime', '--port', '0', '--app-port', '0', '--demo-dir', demoDir];
  const child = spawn(process.execPath, [...args, '--start-timeout', String(timeoutMs / 1000)], {
    cwd: root,
    // No browser from a test run, and the stop does not wait for a turn.
    env: { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '', RUNNER_TRAY_QUIT_DRAIN_MS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk) => output.push(chunk.toString()));
  let problem = null;
  let readyS = null;
  try {
    const [, url] = await printed(child, output, ADDRESS, "the host's address", timeoutMs);
    await printed(child, output, /^Demo ready\.$/m, '"Demo ready."', timeoutMs);
    readyS = (Date.now() - started) / 1000;
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    if (res.status >= 400) problem = `the page answered HTTP ${res.status}`;
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  const stopped = await stopDemo(child, timeoutMs);
  if (!problem && (stopped.code !== 0 || stopped.presses !== 1))
    problem = `one Ctrl-C did not stop it with 0 (${stopped.signal ?? `exit ${stopped.code}`} after ${stopped.presses})`;
  rmSync(demoDir, { recursive: true, force: true });
  return { problem, readyS, output: output.join('') };
}

const { count, burners: burnerCount, timeoutMs } = options();
const burners = Array.from({ length: burnerCount }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopBurners = () => burners.forEach((burner) => burner.kill('SIGKILL'));
process.on('exit', stopBurners);
process.on('SIGINT', () => process.exit(130));
console.log(`${count} demo start(s) in a row, ${burnerCount} CPU-bound process(es) running (${os.availableParallelism()} core(s)).`);
let passed = 0;
for (let i = 1; i <= count; i++) {
  const { problem, readyS, output } = await oneStart(timeoutMs);
  if (problem) {
    console.log(`start ${i}/${count}: FAILED — ${problem}\n${output.replace(/^/gm, '    ')}`);
  } else {
    passed += 1;
    console.log(`start ${i}/${count}: passed (ready in ${readyS?.toFixed(1)} s, the page answered, one Ctrl-C stopped it with 0)`);
  }
}
stopBurners();
console.log(`\nDemo starts under load: ${passed} passed, ${count - passed} failed (of ${count}).`);
process.exit(passed === count ? 0 : 1);
