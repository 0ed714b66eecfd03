import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupOf, typesOnly, untestedCore } from '../../scripts/untested.mjs';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function repo(files: Record<string, string>): string {
  root = mkdtempSync(path.join(os.tmpdir(), 'rt-untested-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe('scripts/untested.mjs', () => {
  it('counts a value import from tests/ (helpers too, index folders, .js specifiers), not a type-only one, a mock or one in a comment', () => {
    const dir = repo({
      'main/core/sessions/a.ts': 'export const a = 1;\n',
      'main/core/sessions/b.ts': 'export function b() {}\n',
      'main/core/sessions/c.ts': 'export class C {}\n',
      'main/core/work/index.ts': 'export * from "./d";\n',
      'main/core/work/d.ts': 'export const d = 1;\n',
      'main/core/work/e.ts': 'export const e = 1;\n',
      'main/core/work/f.d.ts': 'export declare const f: number;\n',
      'tests/core/a.test.ts': "import { a } from '../../main/core/sessions/a';\nimport type { C } from '../../main/core/sessions/c';\n",
      'tests/helpers/h.ts': "import { b } from '../../main/core/sessions/b.js';\n// import { e } from '../../main/core/work/e';\n",
      'tests/core/w.test.ts': "const w = await import('../../main/core/work');\nvi.mock('../../main/core/work/e', () => ({}));\n",
    });
    const rows = Object.fromEntries(untestedCore(dir).map((r) => [r.file, r.imported]));
    expect(rows).toEqual({
      'main/core/sessions/a.ts': true,
      'main/core/sessions/b.ts': true,
      'main/core/sessions/c.ts': false,
      'main/core/work/d.ts': false,
      'main/core/work/e.ts': false,
      'main/core/work/index.ts': true,
    });
  });

  it('marks a module that exports only types', () => {
    expect(typesOnly('export interface A { x: number }\nexport type B = string;\nexport type { C } from "./c";\n')).toBe(true);
    expect(typesOnly('export { type A, type B };\n// export const x = 1;\n')).toBe(true);
    expect(typesOnly('export interface A {}\nexport const x = 1;\n')).toBe(false);
    expect(typesOnly('export { type A, b };\n')).toBe(false);
    expect(typesOnly('export * from "./x";\n')).toBe(false);
    expect(typesOnly('export default function f() {}\n')).toBe(false);
  });

  it('groups a file by its folder, a plane by planes/<name>', () => {
    expect(groupOf('main/core/planes/rost/unit-run.ts')).toBe('planes/rost');
    expect(groupOf('main/core/planes/profile-wiring.ts')).toBe('planes');
    expect(groupOf('main/core/sessions/claim-loop.ts')).toBe('sessions');
    expect(groupOf('main/core/host.ts')).toBe('(root)');
  });
});
