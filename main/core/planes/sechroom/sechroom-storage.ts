import path from 'node:path';
import type { Clock, Logger } from '../../base/ports';
import { StorageHealth } from '../../sessions/storage-health';

/** A Sechroom profile's storage health: its outbox, its in-flight journal and the host's turn folders. */
export function sechroomStorage(profileDir: string, turnsDir: string, deps: { clock: Clock; log: Logger; random?: () => number }): StorageHealth {
  const folders = [path.join(profileDir, 'inflight'), path.join(profileDir, 'outbox'), turnsDir];
  // The claim gates look at the health before each claim and report its state; nothing else listens.
  return new StorageHealth({ ...deps, log: deps.log.child('storage'), folders: () => folders, onChange: () => undefined });
}
