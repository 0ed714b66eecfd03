import type { CommandInput, CommandName, CommandOutput, HostEvent } from '../../../shared/contract';
import type { Result } from '../../../shared/result';

export type ConnectionState =
  | { state: 'connecting' }
  | { state: 'open' }
  | { state: 'reconnecting'; retryAt: number; attempt: number; reason: string }
  /** For good: `restarted` when the host no longer knows this window's session. */
  | { state: 'refused'; reason: string; restarted?: boolean };

/** The renderer's only way to the host; views and the store never see the transport. */
export interface Bridge {
  readonly transport: 'ipc' | 'websocket';
  invoke<K extends CommandName>(name: K, input?: CommandInput<K>): Promise<Result<CommandOutput<K>>>;
  onEvents(listener: (events: HostEvent[]) => void): () => void;
  onConnection(listener: (state: ConnectionState) => void): () => void;
  connect(): void;
}
