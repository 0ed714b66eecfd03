import { errorText } from '../../../../shared/errors';
import type { TaskCard } from '../../../../shared/protocol/sechroom';
import type { Logger } from '../../base/ports';
import { backoffDelay, type BackoffPolicy } from '../../base/backoff';
import { isConnectorError } from '../../connectors/errors';
import type { LoadedPack } from './prompt';
import { AuthExpiredError } from './sechroom-auth';
import type { WorkLayerClient } from './work-layer-client';

const CARD_ATTEMPTS = 3;

export interface TaskLoaderDeps {
  client: Pick<WorkLayerClient, 'card' | 'contextPack'>;
  log: Logger;
  backoff: BackoffPolicy;
  random?: () => number;
  sleep(ms: number): Promise<void>;
  stopping(): boolean;
}

export type LoadedTask = { ok: true; card: TaskCard; pack: LoadedPack | null; warning: string | null } | { ok: false; reason: string };

/**
 * A claimed task's card (seed E6), retried a few times on a retryable fault while the lease
 * is kept (the seed's run dies on it, B15.5), then its context pack (E7): a pack that fails
 * to load leaves the card alone, with the seed's warning. A refused sign-in throws.
 */
export async function loadTask(deps: TaskLoaderDeps, memoryId: string, signal: AbortSignal): Promise<LoadedTask> {
  let card: TaskCard | null = null;
  for (let attempt = 0; !card; attempt++) {
    try {
      card = await deps.client.card(memoryId);
    } catch (error) {
      if (error instanceof AuthExpiredError) throw error;
      const retryable = isConnectorError(error) && error.retryable;
      if (!retryable || attempt + 1 >= CARD_ATTEMPTS || signal.aborted || deps.stopping()) {
        return { ok: false, reason: `task card failed to load (${errorText(error)})` };
      }
      await deps.sleep(backoffDelay(attempt, deps.backoff, deps.random));
    }
  }
  const pointer = card.contextPack;
  if (!pointer) return { ok: true, card, pack: null, warning: null };
  try {
    const pkg = await deps.client.contextPack(pointer.slug, pointer.version);
    return { ok: true, card, pack: { slug: pointer.slug, version: pointer.version, components: pkg.components }, warning: null };
  } catch (error) {
    if (error instanceof AuthExpiredError) throw error;
    const warning = `warning: task ${card.taskId} context pack (${pointer.slug}@${pointer.version}) failed to resolve (${errorText(error)}) — running on card body only`;
    deps.log.warn(warning);
    return { ok: true, card, pack: null, warning };
  }
}
