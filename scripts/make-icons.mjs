// Draws Runner Tray's icons with nothing but Node: shapes as signed distance fields
// (exact antialiasing at every size, no supersampling), PNG written with zlib, ICO with
// BMP entries for the small sizes and a PNG entry for 256 (what Windows, NSIS and
// electron-builder all read). The output is deterministic, so the committed files only
// change when this script does.
//
//   node scripts/make-icons.mjs                 writes assets/
//   node scripts/make-icons.mjs --preview x.png also writes a contact sheet to look at
//
// Tray (per state: unpaired, idle, working, paused, error):
//   tray-<state>.png / @2x        coloured glyph, 16 / 32 px (Linux; Windows fallback)
//   tray-<state>.ico              16, 20, 24, 32, 40, 48 px (Windows, crisp at every DPI)
//   tray-<state>Template.png / @2x black + alpha (macOS menu bar; the name must end in
//                                 "Template" for Electron to let macOS tint it)
// App: icon.png (512), icon-1024.png (macOS, electron-builder makes the .icns), icon.ico.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'assets');

// ---------------------------------------------------------------- signed distances
// Every shape is a function (x, y) → distance in the shape's units, negative inside.
const circle = (cx, cy, r) => (x, y) => Math.hypot(x - cx, y - cy) - r;
const roundRect = (x0, y0, x1, y1, r) => (x, y) => {
  const qx = Math.abs(x - (x0 + x1) / 2) - (x1 - x0) / 2 + r;
  const qy = Math.abs(y - (y0 + y1) / 2) - (y1 - y0) / 2 + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
};
/** Exact distance to a polygon (Inigo Quilez), rounded by r. */
const polygon =
  (points, r = 0) =>
  (x, y) => {
    let d = Infinity;
    let sign = 1;
    for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
      const [xi, yi] = points[i];
      const [xj, yj] = points[j];
      const ex = xj - xi,
        ey = yj - yi;
      const wx = x - xi,
        wy = y - yi;
      const t = Math.max(0, Math.min(1, (wx * ex + wy * ey) / (ex * ex + ey * ey)));
      d = Math.min(d, Math.hypot(wx - ex * t, wy - ey * t));
      const c1 = y >= yi,
        c2 = y < yj,
        c3 = ex * wy > ey * wx;
      if ((c1 && c2 && c3) || (!c1 && !c2 && !c3)) sign = -sign;
    }
    return sign * d - r;
  };
const union =
  (...shapes) =>
  (x, y) =>
    Math.min(...shapes.map((s) => s(x, y)));
const subtract =
  (a, ...holes) =>
  (x, y) =>
    Math.max(a(x, y), ...holes.map((h) => -h(x, y)));
const ring = (cx, cy, r, width) => subtract(circle(cx, cy, r), circle(cx, cy, r - width));

// ---------------------------------------------------------------- raster
function canvas(size) {
  return { size, data: new Float64Array(size * size * 4) }; // premultiplied RGBA, 0..1
}

/**
 * Paints `shape` (in design units; `unit` pixels each) with `paint(x, y)` → [r, g, b, a]
 * (0..255, straight alpha). Coverage at the pixel centre is 0.5 − distance in pixels:
 * exact for straight edges and very close for curves at these sizes.
 */
function fill(target, shape, unit, paint) {
  const { size, data } = target;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      const ux = (px + 0.5) / unit,
        uy = (py + 0.5) / unit;
      const coverage = Math.max(0, Math.min(1, 0.5 - shape(ux, uy) * unit));
      if (coverage === 0) continue;
      const [r, g, b, a = 255] = paint(ux, uy);
      const alpha = (a / 255) * coverage;
      const i = (py * size + px) * 4;
      const keep = 1 - alpha;
      data[i] = (r / 255) * alpha + data[i] * keep;
      data[i + 1] = (g / 255) * alpha + data[i + 1] * keep;
      data[i + 2] = (b / 255) * alpha + data[i + 2] * keep;
      data[i + 3] = alpha + data[i + 3] * keep;
    }
  }
}

/** Straight-alpha 8-bit RGBA, rows top to bottom. */
function toRgba8({ size, data }) {
  const out = Buffer.alloc(size * size * 4);
  for (let i = 0; i < size * size; i++) {
    const a = data[i * 4 + 3];
    const un = (v) => (a > 0 ? Math.round(Math.min(1, v / a) * 255) : 0);
    out[i * 4] = un(data[i * 4]);
    out[i * 4 + 1] = un(data[i * 4 + 1]);
    out[i * 4 + 2] = un(data[i * 4 + 2]);
    out[i * 4 + 3] = Math.round(a * 255);
  }
  return out;
}

const hex = (h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
const solid =
  (color, alpha = 255) =>
  () => [...hex(color), alpha];
const mix = (a, b, t) => a.map((v, i) => Math.round(v + (b[i] - v) * t));

// ---------------------------------------------------------------- encoders
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type, body) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  // Each row starts with its filter byte; "up" (2) compresses flat areas well.
  const stride = size * 4;
  const raw = Buffer.alloc((stride + 1) * size);
  for (let y = 0; y < size; y++) {
    raw[y * (stride + 1)] = 2;
    for (let x = 0; x < stride; x++) {
      const above = y > 0 ? rgba[(y - 1) * stride + x] : 0;
      raw[y * (stride + 1) + 1 + x] = (rgba[y * stride + x] - above) & 0xff;
    }
  }
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw, { level: 9 })), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A 32-bit BMP icon entry: BITMAPINFOHEADER, BGRA rows bottom-up, an empty AND mask. */
function encodeIcoBitmap(size, rgba) {
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // colour + mask, as ICO requires
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const s = ((size - 1 - y) * size + x) * 4;
      const d = (y * size + x) * 4;
      pixels[d] = rgba[s + 2];
      pixels[d + 1] = rgba[s + 1];
      pixels[d + 2] = rgba[s];
      pixels[d + 3] = rgba[s + 3];
    }
  }
  const maskStride = Math.ceil(size / 32) * 4;
  return Buffer.concat([header, pixels, Buffer.alloc(maskStride * size)]);
}

function encodeIco(images) {
  const header = Buffer.alloc(6 + images.length * 16);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(images.length, 4);
  const payloads = images.map(({ size, rgba }) => (size >= 256 ? encodePng(size, rgba) : encodeIcoBitmap(size, rgba)));
  let offset = header.length;
  images.forEach(({ size }, i) => {
    const e = 6 + i * 16;
    header[e] = size >= 256 ? 0 : size; // 0 means 256
    header[e + 1] = size >= 256 ? 0 : size;
    header.writeUInt16LE(1, e + 4); // planes
    header.writeUInt16LE(32, e + 6); // bits per pixel
    header.writeUInt32LE(payloads[i].length, e + 8);
    header.writeUInt32LE(offset, e + 12);
    offset += payloads[i].length;
  });
  return Buffer.concat([header, ...payloads]);
}

// ---------------------------------------------------------------- the tray glyphs
// Designed on a 16-unit grid (one unit is one pixel at 16 px, so straight edges land on
// pixel boundaries): a disc for the runner, a knocked-out symbol for what it is doing.
const STATES = ['unpaired', 'idle', 'working', 'paused', 'error'];
const STATE_COLORS = {
  unpaired: '#8c959f',
  idle: '#2da44e',
  working: '#2f81f7',
  paused: '#d4a72c',
  error: '#e5534b',
};
const DISC = circle(8, 8, 7);
const SYMBOLS = {
  // Unpaired is the one hollow look: a ring, nothing attached yet.
  unpaired: null,
  // Idle: a full disc, ready.
  idle: null,
  // Working: play, optically centred (the centroid sits on the disc's centre).
  working: polygon(
    [
      [6, 4.5],
      [6, 11.5],
      [12, 8],
    ],
    0.35,
  ),
  paused: union(roundRect(5, 4.5, 7, 11.5, 0.4), roundRect(9, 4.5, 11, 11.5, 0.4)),
  error: union(roundRect(7, 3.5, 9, 9.25, 0.6), circle(8, 11.6, 1.2)),
};
const UNPAIRED_RING = ring(8, 8, 7, 2.25);

function trayGlyph(state, size, template) {
  const c = canvas(size);
  const unit = size / 16;
  const symbol = SYMBOLS[state];
  if (template) {
    // Black and alpha only; the symbol is a hole, so macOS tints the rest.
    const shape = state === 'unpaired' ? UNPAIRED_RING : symbol ? subtract(DISC, symbol) : DISC;
    fill(c, shape, unit, solid('#000000'));
    return c;
  }
  const color = STATE_COLORS[state];
  if (state === 'unpaired') {
    fill(c, UNPAIRED_RING, unit, solid(color));
    return c;
  }
  // A thin darker rim keeps the disc distinct on a taskbar of a similar colour.
  fill(c, DISC, unit, solid('#000000', 70));
  fill(c, circle(8, 8, 6.6), unit, solid(color));
  if (symbol) fill(c, symbol, unit, solid('#ffffff'));
  return c;
}

// ---------------------------------------------------------------- the app icon
/** A ring arc from angle a0 to a1 (radians, clockwise on screen), round caps. */
const arc = (cx, cy, r, width, a0, a1) => (x, y) => {
  let t = Math.atan2(y - cy, x - cx) - a0;
  t = ((t % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
  if (t <= a1 - a0) return Math.abs(Math.hypot(x - cx, y - cy) - r) - width / 2;
  const cap = (a) => Math.hypot(x - (cx + r * Math.cos(a)), y - (cy + r * Math.sin(a))) - width / 2;
  return Math.min(cap(a0), cap(a1));
};

// A rounded blue tile with the runner mark: a loop (the runner's claim-run-report cycle)
// around play. Designed on a 1024-unit grid. `margin` is the empty border: macOS icons
// sit on Apple's grid (824 of 1024); Windows and Linux icons fill more of the tile.
function appIcon(size, margin) {
  const c = canvas(size);
  const unit = size / 1024;
  const m = margin;
  const tileSize = 1024 - 2 * m;
  const radius = tileSize * 0.225;
  const tile = roundRect(m, m, 1024 - m, 1024 - m, radius);
  if (m >= 64) {
    // A soft shadow under the tile, as macOS icons have: a few widening, faint layers.
    for (let i = 1; i <= 6; i++) {
      const grow = i * 4;
      fill(c, roundRect(m - grow / 2, m + 10, 1024 - m + grow / 2, 1024 - m + 10 + grow, radius + grow), unit, solid('#000000', 10));
    }
  }
  const top = hex('#5b9af8');
  const bottom = hex('#1d4ccc');
  fill(c, tile, unit, (_x, y) => [...mix(top, bottom, Math.max(0, Math.min(1, (y - m) / tileSize))), 255]);

  const s = tileSize / 824; // the mark scales with the tile
  const cx = 512,
    cy = 512;
  const r = 244 * s;
  const stroke = 60 * s;
  const deg = Math.PI / 180;
  const start = -38 * deg,
    end = 258 * deg; // the gap is at the top right
  fill(c, arc(cx, cy, r, stroke, start, end), unit, solid('#ffffff'));
  // The arrowhead at the loop's end, pointing on round (clockwise) into the gap.
  const ex = cx + r * Math.cos(end),
    ey = cy + r * Math.sin(end);
  const tx = -Math.sin(end),
    ty = Math.cos(end); // tangent, clockwise
  const nx = Math.cos(end),
    ny = Math.sin(end); // normal, outwards
  const half = stroke * 1.35,
    length = stroke * 1.55;
  const head = polygon(
    [
      [ex + nx * half - tx * stroke * 0.15, ey + ny * half - ty * stroke * 0.15],
      [ex + tx * length, ey + ty * length],
      [ex - nx * half - tx * stroke * 0.15, ey - ny * half - ty * stroke * 0.15],
    ],
    6 * s,
  );
  fill(c, head, unit, solid('#ffffff'));
  const play = polygon(
    [
      [cx - 62 * s, cy - 112 * s],
      [cx - 62 * s, cy + 112 * s],
      [cx + 124 * s, cy],
    ],
    20 * s,
  );
  fill(c, play, unit, solid('#ffffff'));
  return c;
}

// ---------------------------------------------------------------- write
const files = new Map();
const png = (name, c) => files.set(name, encodePng(c.size, toRgba8(c)));

for (const state of STATES) {
  png(`tray-${state}.png`, trayGlyph(state, 16, false));
  png(`tray-${state}@2x.png`, trayGlyph(state, 32, false));
  png(`tray-${state}Template.png`, trayGlyph(state, 16, true));
  png(`tray-${state}Template@2x.png`, trayGlyph(state, 32, true));
  files.set(`tray-${state}.ico`, encodeIco([16, 20, 24, 32, 40, 48].map((size) => ({ size, rgba: toRgba8(trayGlyph(state, size, false)) }))));
}
png('icon-1024.png', appIcon(1024, 100));
png('icon.png', appIcon(512, 40));
files.set('icon.ico', encodeIco([16, 24, 32, 48, 64, 128, 256].map((size) => ({ size, rgba: toRgba8(appIcon(size, size <= 32 ? 8 : 24)) }))));

await mkdir(outDir, { recursive: true });
for (const [name, body] of files) await writeFile(path.join(outDir, name), body);
console.log(`make-icons: wrote ${files.size} files to ${path.relative(process.cwd(), outDir) || '.'}`);

const previewAt = process.argv.indexOf('--preview');
if (previewAt !== -1 && process.argv[previewAt + 1]) {
  const file = process.argv[previewAt + 1];
  await writeFile(file, contactSheet());
  console.log(`make-icons: preview in ${file}`);
}

/**
 * A contact sheet to judge the icons by eye: each tray state at 16 px (enlarged 4x,
 * nearest neighbour, so single pixels show) and 32 px (2x), coloured on a light and a
 * dark taskbar, the template as drawn and as macOS tints it in a dark menu bar; then the
 * app icon at 256, 64, 32 and 16 px.
 */
function contactSheet() {
  const cell = 160;
  const W = STATES.length * cell;
  const H = 4 * cell + 270;
  const out = Buffer.alloc(W * H * 4, 255);
  const band = (y0, y1, color) => {
    for (let y = y0; y < y1; y++) for (let x = 0; x < W; x++) out.set([...color, 255], (y * W + x) * 4);
  };
  const blit = (c, ox, oy, k) => {
    const rgba = toRgba8(c);
    for (let y = 0; y < c.size * k; y++) {
      for (let x = 0; x < c.size * k; x++) {
        const s = (Math.floor(y / k) * c.size + Math.floor(x / k)) * 4;
        const d = ((oy + y) * W + ox + x) * 4;
        const a = rgba[s + 3] / 255;
        for (let j = 0; j < 3; j++) out[d + j] = Math.round(rgba[s + j] * a + out[d + j] * (1 - a));
      }
    }
  };
  const light = [240, 240, 240],
    dark = [32, 33, 36];
  [light, dark, light, dark].forEach((color, row) => band(row * cell, (row + 1) * cell, color));
  band(4 * cell, H, [200, 200, 205]);
  STATES.forEach((state, col) => {
    const x = col * cell + 8;
    const tinted = trayGlyph(state, 16, true);
    for (let i = 0; i < tinted.data.length; i += 4) tinted.data.fill(tinted.data[i + 3], i, i + 3);
    const rows = [trayGlyph(state, 16, false), trayGlyph(state, 16, false), trayGlyph(state, 16, true), tinted];
    rows.forEach((glyph, row) => blit(glyph, x, row * cell + 8, 4));
    [false, false, true].forEach((template, row) => blit(trayGlyph(state, 32, template), x + 72, row * cell + 8, 2));
  });
  blit(appIcon(256, 25), 8, 4 * cell + 7, 1);
  blit(appIcon(64, 12), 280, 4 * cell + 8, 1);
  blit(appIcon(32, 8), 360, 4 * cell + 8, 1);
  blit(appIcon(16, 8), 410, 4 * cell + 8, 1);
  const raw = Buffer.alloc((W * 4 + 1) * H);
  for (let y = 0; y < H; y++) out.copy(raw, y * (W * 4 + 1) + 1, y * W * 4, (y + 1) * W * 4);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(W, 0);
  ihdr.writeUInt32BE(H, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}
