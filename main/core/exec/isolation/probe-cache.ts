import { probeIsolation, type IsolationTools, type ProbeDeps } from './isolate';

/** The probe result, shared by the executor, the capabilities and the heartbeat; found again on refresh. */
export class IsolationProbe {
  private current: Promise<IsolationTools> | null = null;

  constructor(private readonly deps: ProbeDeps) {}

  get(): Promise<IsolationTools> {
    this.current ??= probeIsolation(this.deps);
    return this.current;
  }

  refresh(): Promise<IsolationTools> {
    this.current = probeIsolation(this.deps);
    return this.current;
  }
}
