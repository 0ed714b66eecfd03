import { COMMAND_NAMES, EVENT_CHANNEL, type CommandName } from '../../shared/contract';
import { TransportErrorCode, type Result } from '../../shared/result';
import type { Host } from '../core/host';
import type { Logger } from '../core/base/ports';
import { isRendererUrl } from './app-protocol';
import type { ElectronApi, InvokeEventApi, WebContentsApi } from './electron-api';
import { urlForLog } from './security';
import { errorText } from '../../shared/errors';

/**
 * The one door into main. This is the only file in main/electron that touches ipcMain
 * (tests/shell/ipc-door.test.ts greps for it): every contract command is registered here,
 * through one `handle()`, and nothing else listens.
 *
 * The door checks who is knocking; the host checks what they carry (`host.invoke` parses
 * the input from `unknown` with the contract's zod schema). Answers are always data:
 * `{ ok: true, value } | { ok: false, error: { code, message } }`, never a thrown error,
 * which Electron would turn into an opaque string in the renderer.
 */

export interface TrustedSenders {
  isTrustedSender(webContentsId: number): boolean;
  /** The webContents that receive host events: our windows, nothing else. */
  receivers(): WebContentsApi[];
}

export interface IpcDoorOptions {
  electron: Pick<ElectronApi, 'ipcMain'>;
  host: Pick<Host, 'invoke' | 'subscribe'>;
  senders: TrustedSenders;
  log: Logger;
}

export type SenderVerdict = { trusted: true } | { trusted: false; reason: string };

/**
 * A command is accepted only from a webContents we created, from its main frame (an
 * iframe, were one ever to load, gets nothing), while that frame shows our own origin.
 */
export function checkSender(event: InvokeEventApi, senders: Pick<TrustedSenders, 'isTrustedSender'>): SenderVerdict {
  if (!senders.isTrustedSender(event.sender.id)) return { trusted: false, reason: 'unknown webContents' };
  const frame = event.senderFrame;
  if (!frame) return { trusted: false, reason: 'sender frame is gone' };
  if (frame.parent !== null) return { trusted: false, reason: 'not the main frame' };
  if (!isRendererUrl(frame.url)) return { trusted: false, reason: 'foreign origin' };
  return { trusted: true };
}

export class IpcDoor {
  private registered: CommandName[] = [];
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: IpcDoorOptions) {}

  start(): void {
    if (this.unsubscribe) return;
    for (const name of COMMAND_NAMES) this.handle(name);
    this.unsubscribe = this.options.host.subscribe((batch) => {
      for (const contents of this.options.senders.receivers()) {
        try {
          contents.send(EVENT_CHANNEL, batch);
        } catch (error) {
          // A window closing between receivers() and send(); its next batch will not come.
          this.options.log.debug('event delivery skipped', { error: errorText(error) });
        }
      }
    });
  }

  stop(): void {
    if (!this.unsubscribe) return;
    this.unsubscribe();
    this.unsubscribe = null;
    for (const name of this.registered) this.options.electron.ipcMain.removeHandler(name);
    this.registered = [];
  }

  private handle(name: CommandName): void {
    const { electron, host, senders, log } = this.options;
    electron.ipcMain.handle(name, async (event, input): Promise<Result<unknown>> => {
      const verdict = checkSender(event, senders);
      if (!verdict.trusted) {
        log.warn('ipc command refused: untrusted sender', {
          command: name,
          reason: verdict.reason,
          webContentsId: event.sender.id,
          origin: event.senderFrame ? urlForLog(event.senderFrame.url) : null,
        });
        return {
          ok: false,
          error: { code: TransportErrorCode.untrustedSender, message: `${name} refused: the request did not come from the Runner Tray window` },
        };
      }
      try {
        // The sender was checked above: this is the operator's window.
        return await host.invoke(name, input, 'window');
      } catch (error) {
        // host.invoke answers with data; this guards the door against a future regression.
        log.error('ipc command threw', { command: name, error: errorText(error) });
        return { ok: false, error: { code: TransportErrorCode.internal, message: `${name} failed; see the log for details` } };
      }
    });
    this.registered.push(name);
  }
}
