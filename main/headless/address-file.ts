import { randomBytes } from 'node:crypto';
import { chmod, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * `--token-file <path>`: the address and the script token go to a file only the user can
 * read (0600), never to the terminal (a systemd journal, a shared tmux, a screen share).
 * Lines are `NAME=value`, so a shell script can `source` it:
 *
 *     RUNNER_TRAY_URL=http://127.0.0.1:7420/?token=…   (opens one window, once)
 *     RUNNER_TRAY_TOKEN=…                              (a script's WebSocket Authorization: Bearer; in no address)
 *
 * The file is replaced atomically each time a new address is asked for.
 */
export async function writeAddressFile(file: string, address: { url: string; token: string }): Promise<void> {
  await writePrivate(file, `RUNNER_TRAY_URL=${address.url}\nRUNNER_TRAY_TOKEN=${address.token}\n`);
}

/**
 * A page that sends the browser on to `url`, for `--open`: the browser launcher is given
 * this file's path, so the token is never in a process's argv (which `ps` shows to every
 * user of the machine).
 */
export async function writeLauncherPage(file: string, url: string): Promise<void> {
  const href = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  await writePrivate(
    file,
    `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${href}"><title>Runner Tray</title><a href="${href}">Open Runner Tray</a>\n`,
  );
}

async function writePrivate(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(tmp, 0o600);
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
