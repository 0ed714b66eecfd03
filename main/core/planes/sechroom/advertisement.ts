import { errorText } from '../../../../shared/errors';
import type { Clock, Logger, TimerHandle } from '../../base/ports';
import { backoffDelay, type BackoffPolicy } from '../../base/backoff';
import { isConnectorError } from '../../connectors/errors';
import { refreshAfterMs, registrationInput, type InstanceSettings } from '../../../../shared/sechroom-instance-settings';
import { AuthExpiredError } from './sechroom-auth';
import type { WorkLayerClient } from './work-layer-client';

export interface AdvertisementDeps {
  client: Pick<WorkLayerClient, 'register' | 'refreshInstance' | 'deregister'>;
  settings: InstanceSettings;
  clock: Clock;
  log: Logger;
  backoff: BackoffPolicy;
  random?: () => number;
  sleep(ms: number): Promise<void>;
  stopping(): boolean;
  /** A registration attempt failed; the next comes at `retryAt`. */
  onBackoff(message: string, retryAt: number): void;
}

/**
 * The instance's advertisement (seed E1, E2, E10): registered at the start, backing off on
 * trouble (the seed's run aborts), refreshed on its schedule (re-registered under the same
 * key when the Work Layer forgot it), and withdrawn on stop.
 */
export class Advertisement {
  private instanceId: string | null = null;
  private timer: TimerHandle | null = null;

  constructor(private readonly deps: AdvertisementDeps) {}

  get id(): string | null {
    return this.instanceId;
  }

  /** The instance id, or null when stopped first; a refused sign-in throws AuthExpiredError. */
  async register(): Promise<string | null> {
    for (let attempt = 0; !this.deps.stopping(); attempt++) {
      try {
        const instance = await this.deps.client.register(registrationInput(this.deps.settings));
        this.instanceId = instance.id;
        this.schedule();
        return instance.id;
      } catch (error) {
        if (error instanceof AuthExpiredError) throw error;
        const delay = backoffDelay(attempt, this.deps.backoff, this.deps.random);
        this.deps.log.warn(`registration failed (${errorText(error)}) — retrying in ${delay} ms`);
        this.deps.onBackoff(`registration failed: ${errorText(error)}`, this.deps.clock.now() + delay);
        await this.deps.sleep(delay);
      }
    }
    return null;
  }

  async withdraw(): Promise<void> {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    if (!this.instanceId) return;
    try {
      await this.deps.client.deregister(this.instanceId);
      this.deps.log.info('deregistered');
    } catch (error) {
      this.deps.log.warn(`deregister failed (${errorText(error)}) — advertisement will expire by TTL`);
    }
  }

  private schedule(): void {
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      void this.refresh().finally(() => {
        if (!this.deps.stopping()) this.schedule();
      });
    }, refreshAfterMs(this.deps.settings));
  }

  private async refresh(): Promise<void> {
    if (!this.instanceId) return;
    try {
      await this.deps.client.refreshInstance(this.instanceId, this.deps.settings.ttlSeconds);
    } catch (error) {
      this.deps.log.warn(`advertisement refresh failed: ${errorText(error)}`);
      // Deregistered behind our back (404 unknown_instance): advertise again under the same key.
      if (isConnectorError(error, 'not_found') && !this.deps.stopping()) {
        const instance = await this.deps.client.register(registrationInput(this.deps.settings)).catch(() => null);
        if (instance) this.instanceId = instance.id;
      }
    }
  }
}
