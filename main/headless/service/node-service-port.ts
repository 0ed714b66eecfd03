import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { ServicePort } from './service-port';

/** The real system: files under the user's home, and systemctl / launchctl / schtasks. */
export function nodeServicePort(): ServicePort {
  const info = os.userInfo();
  return {
    platform: process.platform,
    homeDir: os.homedir(),
    uid: typeof process.getuid === 'function' ? process.getuid() : null,
    userName: info.username,
    exists: (file) => existsSync(file),
    readFile: (file) => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return null;
      }
    },
    writeFile: (file, text, options = {}) => {
      const mode = options.mode ?? 0o644;
      writeFileSync(file, options.encoding === 'utf16le' ? Buffer.from(`\ufeff${text}`, 'utf16le') : text, { mode });
      // A file that was there keeps its old mode through writeFileSync: set it.
      chmodSync(file, mode);
    },
    removeFile: (file) => rmSync(file, { force: true }),
    mkdir: (dir) => mkdirSync(dir, { recursive: true }),
    run: (command, args) =>
      new Promise((resolve) => {
        execFile(command, [...args], { timeout: 60_000, windowsHide: true }, (error, stdout, stderr) => {
          const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: error && !stderr ? error.message : String(stderr) });
        });
      }),
    attach: (command, args) =>
      new Promise((resolve) => {
        const child = spawn(command, [...args], { stdio: 'inherit', windowsHide: true });
        child.on('error', () => resolve(127));
        child.on('close', (code) => resolve(code ?? 0));
      }),
  };
}
