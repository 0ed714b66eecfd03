// The page's initial script: the entry the built index.html loads and every chunk it
// imports statically (what a browser fetches before the first view renders), gzipped.
// Chunks behind import() (views and charts loaded when first shown) are not counted.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

export function initialJs(dir = rendererDir): { gzipBytes: number; files: string[] } {
  const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
  const entries = [...html.matchAll(/<script[^>]+src="\.?\/?([^"]+\.js)"/g)].map((m) => m[1]!);
  const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]+href="\.?\/?([^"]+\.js)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  const queue = [...entries, ...preloads];
  let gzipBytes = 0;
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(path.join(dir, file));
    gzipBytes += gzipSync(code, { level: 9 }).length;
    // Static imports only: `import{…}from"./x.js"` and `import"./x.js"`, never `import("./x.js")`.
    for (const m of code.toString('utf8').matchAll(/\bimport\s*(?:[\w*{}\s,$]+from\s*)?["']\.\/([^"']+\.js)["']/g)) {
      queue.push(path.posix.join(path.posix.dirname(file), m[1]!));
    }
  }
  return { gzipBytes, files: [...seen] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { gzipBytes, files } = initialJs();
  console.log(`initial JS: ${(gzipBytes / 1024).toFixed(1)} kB gzipped in ${files.length} file(s): ${files.join(', ')}`);
}
