// Type-checks each environment with its own tsconfig, so a browser API in Node code,
// a Node API in the renderer or shared/, or electron in main/core fails here.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const projects = ['shared', 'node', 'electron', 'renderer', 'tests'];
let failed = 0;
for (const name of projects) {
  const r = spawnSync(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`typecheck: tsconfig.${name}.json failed`);
  }
}
if (failed) process.exit(1);
console.log(`typecheck: ${projects.length} projects clean`);
