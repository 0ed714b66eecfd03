/**
 * V8 settings the host sets for itself, as the first thing it evaluates (cli.ts imports
 * this module first; the bundle has it as a file of its own, imported ahead of the shared
 * chunks: scripts/build-headless.mjs). Set here, they apply however the host is started
 * (the package's command, the service unit, the container, `npm run headless`).
 *
 * - The young generation stays at its first size: V8 grows it (towards 2 × 16 MB) whenever
 *   a burst of allocation survives, as evaluating the bundle and loading a long turn
 *   history do, and an idle host never gives that memory back. Kept small, the idle host
 *   is ~6–9 MB smaller and 10,000 history rows cost ~1.2–1.7 MB per 1,000 instead of
 *   ~3.4 (docs/benchmarks.md). The `--max-semi-space-size` flag would do the same but only
 *   on node's own command line; the growth factor is read each time V8 would grow it.
 * - An idle host's one GC wake: V8's memory reducer compacts the heap once after start-up
 *   instead of three times in a row (the second and third freed ~0.1 MB of 12 MB here and
 *   cost ~25 ms of a core).
 */
import v8 from 'node:v8';

v8.setFlagsFromString('--semi-space-growth-factor=1');
v8.setFlagsFromString('--memory-reducer-single-gc');
