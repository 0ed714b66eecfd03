// Types for scripts/untested.mjs (plain JavaScript, run with `node scripts/untested.mjs`).
export interface CoreFileUse {
  file: string;
  imported: boolean;
  typesOnly: boolean;
}
export function typesOnly(source: string): boolean;
export function untestedCore(repoRoot: string): CoreFileUse[];
export function groupOf(file: string): string;
