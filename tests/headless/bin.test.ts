import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_ENTRY } from '../../main/headless/entry-point';

/** `runner-tray-headless` is a real command: package.json's bin, built with a shebang, linked by npm, the container's entry. */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bundle = path.join(root, BUILT_ENTRY);
let prefix = '';

beforeAll(() => {
  execFileSync(process.execPath, [path.join(root, 'scripts/build-headless.mjs')], { cwd: root, stdio: 'ignore' });
  prefix = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-bin-'));
  // What `npm link` and `npm install -g <checkout>` do: link the package and its bin into a prefix.
  execFileSync('npm', ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', root], { stdio: 'ignore' });
}, 120_000);
afterAll(() => {
  if (prefix) rmSync(prefix, { recursive: true, force: true });
});

describe('runner-tray-headless', () => {
  it('package.json names the bundle as its bin; the bundle is executable and starts with a shebang', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ 'runner-tray-headless': BUILT_ENTRY });
    expect(readFileSync(bundle, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(statSync(bundle).mode & 0o111).toBe(0o111);
  });

  it("sets its V8 settings before any chunk's code runs, and they keep V8's young generation at its first size", () => {
    const lines = readFileSync(bundle, 'utf8').split('\n');
    expect(lines[1]!.startsWith("import './startup-flags.mjs';")).toBe(true);
    // 200,000 objects that all survive: V8 grows its young generation for them unless told not to.
    const survivors = (first: string) =>
      `${first} const v8 = await import('node:v8'); const keep = []; for (let i = 0; i < 200000; i++) keep.push({ a: 'x' + i, b: [i] });` +
      ` console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576);`;
    const newSpaceMb = (first: string) =>
      Number(execFileSync(process.execPath, ['--input-type=module', '-e', survivors(first)], { cwd: path.dirname(bundle), encoding: 'utf8' }).trim());
    expect(newSpaceMb("await import('./startup-flags.mjs');")).toBeLessThanOrEqual(4);
    expect(newSpaceMb('')).toBeGreaterThan(4);
  });

  it('npm links it onto PATH, and it runs --help by itself', () => {
    const linked = path.join(prefix, 'bin', 'runner-tray-headless');
    const ran = spawnSync(linked, ['--help'], { encoding: 'utf8', env: { ...process.env, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` } });
    expect(ran.status).toBe(0);
    expect(ran.stdout.split('\n')[0]).toMatch(/^Usage: runner-tray-headless /);
  });

  it("the container's command line (ENTRYPOINT after tini, then CMD) runs outside docker", () => {
    const dockerfile = readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');
    const entrypoint = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(dockerfile)![1]!) as string[];
    const cmd = JSON.parse(/^CMD (.+)$/m.exec(dockerfile)![1]!) as string[];
    const [command, ...args] = entrypoint.slice(entrypoint.indexOf('--') + 1);
    const ran = spawnSync(path.join(prefix, 'bin', command!), [...args, ...cmd, '--help'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` },
    });
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('runner-tray-headless service install');
  });
});
