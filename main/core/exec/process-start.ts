import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/**
 * A process's identity beyond its pid, which the system reuses: its start time. Linux:
 * field 22 of /proc/<pid>/stat (clock ticks since boot) with the boot time from
 * /proc/stat; macOS: `ps -o lstart=`. Null where neither works or the process is gone.
 * Two tokens are equal only for the same process.
 */
export async function processStartToken(pid: number, platform: NodeJS.Platform = process.platform): Promise<string | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (platform === 'linux') return linuxToken(pid);
  if (platform === 'darwin') return darwinToken(pid);
  return null;
}

async function linuxToken(pid: number): Promise<string | null> {
  try {
    const [stat, system] = await Promise.all([readFile(`/proc/${pid}/stat`, 'utf8'), readFile('/proc/stat', 'utf8')]);
    // "pid (comm) state …": comm may hold spaces and parens, so count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields[19]; // field 22 overall: fields here start at field 3 (state)
    const btime = /^btime (\d+)$/m.exec(system)?.[1];
    return ticks && /^\d+$/.test(ticks) && btime ? `linux:${btime}:${ticks}` : null;
  } catch {
    return null;
  }
}

function darwinToken(pid: number): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'lstart=', '-p', String(pid)], { timeout: 2_000 }, (error, stdout) => {
      const text = String(stdout).trim();
      resolve(error || !text ? null : `darwin:${text}`);
    });
  });
}
