import path from 'node:path';
import { StorageHealth } from '../../sessions/storage-health';
import type { RostSessionDeps, SessionHooks } from './rost-session-deps';

/** The Rost session's storage health: its running journal, its outbox and the host's turn folders. */
export function storageHealth(deps: RostSessionDeps, hooks: SessionHooks): StorageHealth {
  const folders = [path.join(deps.dir, 'running'), path.join(deps.dir, 'outbox'), ...(deps.turnsDir ? [deps.turnsDir] : [])];
  return new StorageHealth({
    clock: deps.clock,
    log: deps.log.child('storage'),
    ...(deps.random ? { random: deps.random } : {}),
    folders: () => folders,
    onChange: () => hooks.changed(),
  });
}
