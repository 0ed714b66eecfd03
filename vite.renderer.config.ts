import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

// Build tooling, kept outside renderer/ so that folder holds only code that runs in the page.
const root = fileURLToPath(new URL('./renderer', import.meta.url));

interface Node {
  type: string;
  start: number;
  end: number;
  declaration?: Node | null;
  declarations?: { init?: Node | null }[];
  callee?: Node;
  object?: Node;
  name?: string;
}

/** The identifier a call or member chain starts from (`z` in `z.object({…}).strict()`). */
function chainRoot(node: Node | undefined): string | null {
  while (node && (node.type === 'CallExpression' || node.type === 'MemberExpression')) node = node.type === 'CallExpression' ? node.callee : node.object;
  return node?.type === 'Identifier' ? (node.name ?? null) : null;
}

// shared/ defines zod schemas beside the constants and helpers the page uses. Building a
// schema has no side effect, but a bundler cannot know that of a call chain: each top-level
// schema (a chain from `z` or from another `…Schema`, or an object of schema parts) is
// wrapped in an IIFE marked pure, so one the page never uses is left out, and zod with it,
// from the first script (the Settings form and the operator views load it when opened).
// The page's source maps lose exact positions inside those shared modules.
const unusedSchemasOut: Plugin = {
  name: 'unused-schemas-out',
  transform(code, id) {
    if (!/[\\/]shared[\\/].*\.ts$/.test(id) || !code.includes('zod')) return null;
    const program = this.parse(code) as unknown as { body: Node[] };
    const inits: Node[] = [];
    for (const statement of program.body) {
      const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement;
      if (declaration?.type !== 'VariableDeclaration') continue;
      for (const d of declaration.declarations ?? []) {
        if (!d.init) continue;
        const root = chainRoot(d.init);
        const chain = root !== null && (root === 'z' || root.endsWith('Schema'));
        // Shapes shared by several schemas: `{ reason: z.string() }`.
        const parts = d.init.type === 'ObjectExpression' && /\bz\./.test(code.slice(d.init.start, d.init.end));
        if (chain || parts) inits.push(d.init);
      }
    }
    if (inits.length === 0) return null;
    let out = code;
    for (const init of inits.sort((a, b) => b.start - a.start)) {
      out = `${out.slice(0, init.start)}/* @__PURE__ */ (() => (${out.slice(init.start, init.end)}))()${out.slice(init.end)}`;
    }
    return { code: out, map: null };
  },
};

export default defineConfig({
  root,
  // Relative asset paths: the same build loads from app://renderer/ in Electron and
  // from the headless host's root.
  base: './',
  plugins: [react(), unusedSchemasOut],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    // Every browser the page supports preloads modules itself: no polyfill in the first script.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // Everything the first view imports statically in one chunk beside the entry: a
        // dozen small shared chunks would each be gzipped alone (about 3 kB more in all).
        codeSplitting: { groups: [{ name: 'first', tags: ['$initial'] }] },
      },
    },
  },
});
