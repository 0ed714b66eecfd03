import type { RuntimeId } from '../../../../shared/runtimes';
import type { RunnerSnapshot } from '../../../../shared/runner';
import type { Settings } from '../../../../shared/settings';
import type { Logger } from '../../base/ports';
import { noReadyRuntime, runtimeReady, type CapabilityDetector } from '../../runner/capabilities';
import type { RuntimeBreaker } from '../../runner/runtime-breaker';
import { describeNotReady, runtimeReadiness } from '../../runner/runtime-readiness';

/** Which of the machine's runtimes a profile may claim for, under its settings and the breaker. */
export class RuntimeGate {
  /** Why claims are withheld now (logged once per change), or null while they are not. */
  private withheld: string | null = null;

  constructor(
    private readonly capabilities: CapabilityDetector,
    private readonly breaker: RuntimeBreaker,
    private readonly settings: () => Settings,
    private readonly log: Logger,
  ) {}

  /** Why no allowed runtime can take work now (not signed in, breaker open), or null. */
  notReady(): string | null {
    return noReadyRuntime(this.capabilities.peek(), this.settings().runtime, this.breaker.state);
  }

  /**
   * The runtimes a claim may ask for: none in heartbeat-only mode ("Run work on this
   * machine" off, `RUNNER_EXECUTE=0`) or while no runtime is ready, as the seed claims
   * only when it finds an execution runtime. A change of reason is logged once.
   */
  claimable(): RuntimeId[] {
    const s = this.settings();
    let reason: string | null = null;
    let ready: RuntimeId[] = [];
    if (!s.runWork) reason = 'heartbeat-only mode: "Run work on this machine" is off';
    else {
      const readiness = runtimeReadiness({ capabilities: this.capabilities.peek(), preference: s.runtime, tripped: this.breaker.state });
      ready = readiness.ready;
      if (ready.length === 0) reason = `no runtime is ready (${describeNotReady(readiness)})`;
    }
    if (reason !== this.withheld) {
      if (reason) this.log.info('claiming nothing', { reason });
      else if (this.withheld) this.log.info('claiming work again', { runtimes: ready.join(',') });
      this.withheld = reason;
    }
    return ready;
  }

  view(): RunnerSnapshot['runtimes'] {
    const detected = this.capabilities.peek();
    if (!detected) return null;
    const tripped = this.breaker.state;
    const view = (name: 'claude' | 'codex') => {
      const cap = detected[name];
      const readiness = runtimeReady(name, cap, tripped);
      const problem = readiness.ready || !cap.installed ? undefined : (tripped[name] ?? cap.problem);
      return { ...cap, ready: readiness.ready, ...(problem ? { problem } : {}) };
    };
    return { claude: view('claude'), codex: view('codex') };
  }
}
