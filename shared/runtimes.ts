/** The coding agents a runner can run, and every name each one goes by. */
export const RUNTIME_IDS = ['claude', 'codex'] as const;
export type RuntimeId = (typeof RUNTIME_IDS)[number];

export interface RuntimeNames {
  /** What the window shows. */
  label: string;
  /** The `runtime` a result reports to the control plane (protocol.md). */
  wire: 'claude-cli' | 'codex-cli';
  /** The executable looked up on PATH when no path is configured. */
  binary: string;
}

export const RUNTIME_NAMES: Readonly<Record<RuntimeId, RuntimeNames>> = {
  claude: { label: 'Claude Code', wire: 'claude-cli', binary: 'claude' },
  codex: { label: 'Codex', wire: 'codex-cli', binary: 'codex' },
};

export function runtimeLabel(id: RuntimeId): string {
  return RUNTIME_NAMES[id].label;
}

export function wireRuntime(id: RuntimeId): RuntimeNames['wire'] {
  return RUNTIME_NAMES[id].wire;
}
