/**
 * The core's stop, built as the core is: each subsystem adds how it stops right after it is
 * made, and `run()` stops them once, newest first, so what was built on something stops
 * before it does. A step that throws is logged by the caller's `onError` and the rest still run.
 */
export class Teardown {
  private readonly steps: { name: string; stop: () => Promise<void> | void }[] = [];
  private running: Promise<void> | null = null;

  constructor(private readonly onError: (name: string, error: unknown) => void = () => {}) {}

  add(name: string, stop: () => Promise<void> | void): void {
    if (this.running) throw new Error(`cannot add "${name}" to a teardown already running`);
    this.steps.push({ name, stop });
  }

  /** Runs every step once, in reverse order; later calls get the same promise. */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of [...this.steps].reverse()) {
        try {
          await step.stop();
        } catch (error) {
          this.onError(step.name, error);
        }
      }
    })();
    return this.running;
  }
}
