import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { expectedFuses, fuseMismatches, packagedBinaries } from '../../scripts/check-fuses.mjs';

/**
 * The check `npm run dist` runs after electron-builder: the packaged binary's fuses read
 * back must be electron-builder.yml's. No Electron binary can be downloaded here, so the
 * binaries are made: the fuse sentinel, the wire version, its length, then one byte per fuse.
 */
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
const ON = 49;
const OFF = 48;
const dir = mkdtempSync(path.join(tmpdir(), 'rt-fuses-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeElectron(file: string, wire: number[]): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Buffer.concat([Buffer.from('\x7fELF padding '), Buffer.from(SENTINEL), Buffer.from([1, wire.length, ...wire]), Buffer.from(' tail')]));
  chmodSync(file, 0o755);
  return file;
}

const yaml = readFileSync(fileURLToPath(new URL('../../electron-builder.yml', import.meta.url)), 'utf8');

describe('the fuses check after packaging', () => {
  it("reads electron-builder.yml's electronFuses, RunAsNode off", () => {
    expect(expectedFuses(yaml)).toEqual({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      EnableCookieEncryption: true,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
      GrantFileProtocolExtraPrivileges: false,
    });
  });

  it('passes a binary flipped as the file says, and names each fuse that is not', async () => {
    const expected = expectedFuses(yaml);
    // Wire order: RunAsNode, CookieEncryption, NodeOptions, CliInspect, AsarIntegrity, OnlyAsar, V8Snapshot, FileProtocol.
    const good = fakeElectron(path.join(dir, 'linux-unpacked', 'runner-tray'), [OFF, ON, OFF, OFF, ON, ON, OFF, OFF]);
    expect(await fuseMismatches(good, expected)).toEqual([]);
    const stock = fakeElectron(path.join(dir, 'stock', 'electron'), [ON, OFF, ON, ON, OFF, OFF, OFF, ON]);
    const wrong = await fuseMismatches(stock, expected);
    expect(wrong).toHaveLength(7);
    expect(wrong[0]).toBe('RunAsNode: true (electron-builder.yml says false)');
  });

  it('finds the packaged executables under release/, not the helpers beside them', () => {
    fakeElectron(path.join(dir, 'linux-unpacked', 'chrome-sandbox'), []);
    writeFileSync(path.join(dir, 'linux-unpacked', 'resources.pak'), '');
    mkdirSync(path.join(dir, 'mac-arm64', 'Runner Tray.app'), { recursive: true });
    expect(
      packagedBinaries(dir)
        .map((f) => path.relative(dir, f))
        .sort(),
    ).toEqual([path.join('linux-unpacked', 'runner-tray'), path.join('mac-arm64', 'Runner Tray.app')]);
  });
});
