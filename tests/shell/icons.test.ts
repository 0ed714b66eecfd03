import { existsSync, readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { TrayIconKind } from '../../shared/status';

const assets = new URL('../../assets/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, assets));
const STATES: TrayIconKind[] = ['unpaired', 'idle', 'working', 'paused', 'error'];

/** Decodes an 8-bit RGBA PNG (the only kind make-icons writes) into its pixels. */
function decodePng(file: Buffer): { width: number; height: number; rgba: Buffer } {
  expect(file.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.toString('ascii', offset + 4, offset + 8);
    const body = file.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      expect([body[8], body[9]]).toEqual([8, 6]);
    }
    if (type === 'IDAT') idat.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 4;
  const rgba = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!;
      const left = x >= 4 ? rgba[y * stride + x - 4]! : 0;
      const up = y > 0 ? rgba[(y - 1) * stride + x]! : 0;
      const upLeft = x >= 4 && y > 0 ? rgba[(y - 1) * stride + x - 4]! : 0;
      const paeth = () => {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      };
      const predictor = [0, left, up, (left + up) >> 1, paeth()][filter!]!;
      rgba[y * stride + x] = (value + predictor) & 0xff;
    }
  }
  return { width, height, rgba };
}

function icoSizes(file: Buffer): number[] {
  expect(file.readUInt16LE(2)).toBe(1);
  const sizes: number[] = [];
  for (let i = 0; i < file.readUInt16LE(4); i++) {
    const entry = 6 + i * 16;
    const size = file[entry] || 256;
    const length = file.readUInt32LE(entry + 8);
    const at = file.readUInt32LE(entry + 12);
    expect(at + length).toBeLessThanOrEqual(file.length);
    const payload = file.subarray(at, at + length);
    if (size >= 256) expect(decodePng(payload).width).toBe(256);
    else expect([payload.readUInt32LE(0), payload.readInt32LE(4), payload.readInt32LE(8), payload.readUInt16LE(14)]).toEqual([40, size, size * 2, 32]);
    sizes.push(size);
  }
  return sizes;
}

const opaquePixels = (rgba: Buffer) => {
  let n = 0;
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i]! > 0) n++;
  return n;
};

describe('icons (scripts/make-icons.mjs output, committed in assets/)', () => {
  it.each(STATES)('has the %s tray icon at 16 and 32 px, coloured and as a macOS template', (state) => {
    for (const [name, size] of [
      [`tray-${state}.png`, 16],
      [`tray-${state}@2x.png`, 32],
      [`tray-${state}Template.png`, 16],
      [`tray-${state}Template@2x.png`, 32],
    ] as const) {
      const { width, height, rgba } = decodePng(read(name));
      expect([width, height]).toEqual([size, size]);
      expect(opaquePixels(rgba)).toBeGreaterThan(size * size * 0.2);
    }
    expect(icoSizes(read(`tray-${state}.ico`))).toEqual([16, 20, 24, 32, 40, 48]);
  });

  it.each(STATES)('draws the %s template in black and alpha only', (state) => {
    for (const name of [`tray-${state}Template.png`, `tray-${state}Template@2x.png`]) {
      const { rgba } = decodePng(read(name));
      let coloured = 0;
      for (let i = 0; i < rgba.length; i += 4) if (rgba[i] || rgba[i + 1] || rgba[i + 2]) coloured++;
      expect(coloured).toBe(0);
    }
  });

  it('gives each state its own look', () => {
    const looks = new Set(STATES.map((s) => read(`tray-${s}Template.png`).toString('base64')));
    expect(looks.size).toBe(STATES.length);
  });

  it('has the app icons electron-builder is pointed at', () => {
    expect(decodePng(read('icon.png')).width).toBe(512);
    expect(decodePng(read('icon-1024.png')).width).toBe(1024);
    expect(icoSizes(read('icon.ico'))).toEqual([16, 24, 32, 48, 64, 128, 256]);
    const config = readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8');
    for (const icon of config.matchAll(/icon: (assets\/\S+)/gi)) expect(existsSync(new URL(`../../${icon[1]}`, import.meta.url))).toBe(true);
  });
});
