import type {
  CapacityView,
  ConfirmationView,
  LifecycleAction,
  LifecycleOutcome,
  OperatorStatus,
  RequestBoard,
  RequestDetailView,
  SignOutResult,
  ResumeBound,
} from '../../../shared/operator';
import type { RunnerPairingStartOutput } from '../../../shared/protocol';
import type { OperatorService, OperatorServiceDeps } from './operator-service';
import type { WorkLayerCalls } from '../planes/sechroom/work-layer-handlers';

/**
 * The operator side (sign-in, Forge requests), loaded and started when first used: a
 * runner that nobody signs in to never loads the OAuth, session and Forge modules (the
 * headless bundle keeps them in a chunk of their own). The first operator command, or a
 * pairing that asks whether an operator is signed in, loads it.
 */
export class LazyOperatorService {
  private loading: Promise<OperatorService> | null = null;
  private stopped = false;

  constructor(private readonly deps: OperatorServiceDeps) {}

  /** The Work view's calls, made once the operator side is loaded. */
  readonly workLayer: WorkLayerCalls = {
    board: async (profile) => (await this.service()).workLayer.board(profile),
    briefAction: async (input) => (await this.service()).workLayer.briefAction(input),
    returnForRevision: async (input) => (await this.service()).workLayer.returnForRevision(input),
  };

  /** Nothing to do until the operator side is first used. */
  async start(): Promise<void> {
    this.stopped = false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.loading) await (await this.loading).stop();
  }

  private service(): Promise<OperatorService> {
    if (this.stopped) return Promise.reject(new Error('the operator service has stopped'));
    this.loading ??= import('./operator-service').then(async ({ OperatorService }) => {
      const service = new OperatorService(this.deps);
      await service.start();
      return service;
    });
    // A failed load is tried again at the next use.
    this.loading.catch(() => (this.loading = null));
    return this.loading;
  }

  async currentStatus(): Promise<OperatorStatus> {
    return (await this.service()).currentStatus();
  }
  async signIn(): Promise<OperatorStatus> {
    return (await this.service()).signIn();
  }
  async cancelSignIn(): Promise<OperatorStatus> {
    return (await this.service()).cancelSignIn();
  }
  async signOut(): Promise<SignOutResult> {
    return (await this.service()).signOut();
  }
  async list(limit?: number): Promise<RequestBoard> {
    return (await this.service()).requests.list(limit);
  }
  async show(id: string): Promise<RequestDetailView> {
    return (await this.service()).requests.show(id);
  }
  async lifecycle(action: LifecycleAction, id: string, reason: string | undefined, bound?: ResumeBound): Promise<LifecycleOutcome> {
    return (await this.service()).requests.lifecycle(action, id, reason, bound);
  }
  async capacity(): Promise<CapacityView> {
    return (await this.service()).requests.capacity();
  }
  async confirmation(id: string): Promise<ConfirmationView> {
    return (await this.service()).requests.confirmation(id);
  }
  async runnerPairingStart(input: { name: string; platform: string }): Promise<RunnerPairingStartOutput | null> {
    return (await this.service()).runnerPairingStart(input);
  }
}
