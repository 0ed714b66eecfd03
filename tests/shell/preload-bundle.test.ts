import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../shared/contract';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The preload as it ships: bundled to one CommonJS file the way scripts/build-electron.mjs
 * does it, then run in an empty V8 context whose `require` knows only 'electron', like a
 * sandboxed renderer's. Proves the bundle needs nothing else and exposes only the API.
 */
describe('the bundled preload', () => {
  it('runs with only require("electron") and exposes exactly window.runnerTray', async () => {
    const result = await build({
      absWorkingDir: repoRoot,
      entryPoints: ['preload/preload.ts'],
      bundle: true,
      format: 'cjs',
      platform: 'browser',
      target: 'chrome130',
      external: ['electron'],
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;

    const exposed: Array<[string, unknown]> = [];
    const required: string[] = [];
    const fakeElectron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.push([key, api]) },
      ipcRenderer: { invoke: async () => ({ ok: true, value: null }), on: () => {}, removeListener: () => {} },
    };
    const sandboxRequire = (name: string) => {
      required.push(name);
      if (name === 'electron') return fakeElectron;
      throw new Error(`a sandboxed preload cannot require '${name}'`);
    };
    const module = { exports: {} };
    vm.runInNewContext(code, { require: sandboxRequire, module, exports: module.exports, console });

    expect(required).toEqual(['electron']);
    expect(exposed.map(([key]) => key)).toEqual(['runnerTray']);
    expect(Object.keys(exposed[0]![1] as object).sort()).toEqual([...COMMAND_NAMES, 'subscribe'].sort());
  });
});
