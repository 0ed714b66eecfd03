// Types for scripts/arch.mjs (plain JavaScript, run by `npm run arch` and layering.test.ts).
export interface Layer {
  folder: string;
  layer: number;
  holds: string;
}
export interface CoreGraph {
  nodes: { file: string; folder: string; lines: number }[];
  edges: { from: string; to: string }[];
}
export interface ArchViolation {
  from: string;
  to: string;
  rule: string;
}
export const LAYERS: Layer[];
export function folderOf(rel: string): string;
export function coreGraph(repoRoot: string): CoreGraph;
export function archViolations(graph: CoreGraph): ArchViolation[];
export function folderEdges(graph: CoreGraph): { from: string; to: string; count: number }[];
export function renderArchitecture(graph: CoreGraph): string;
