/** Everything `service …` does to the system, behind one port so tests see exact files and calls. */
export interface ServicePort {
  readonly platform: NodeJS.Platform;
  readonly homeDir: string;
  /** The user's numeric id (launchd's `gui/<uid>` domain); null where there is none (Windows). */
  readonly uid: number | null;
  readonly userName: string;
  exists(file: string): boolean;
  readFile(file: string): string | null;
  /** `utf16le` writes a BOM first (Task Scheduler's XML); `mode` is the file's permissions (0600 for what only its owner may read). */
  writeFile(file: string, text: string, options?: { encoding?: 'utf8' | 'utf16le'; mode?: number }): void;
  removeFile(file: string): void;
  mkdir(dir: string): void;
  /** Runs a command to its end and returns what it said. */
  run(command: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Runs a command attached to this terminal (`logs` follows until Ctrl-C); resolves with its exit code. */
  attach(command: string, args: readonly string[]): Promise<number>;
}
