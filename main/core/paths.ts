import path from 'node:path';

export interface HostPaths {
  dataDir: string;
  logDir: string;
}

/**
 * Where a headless host keeps its data when not told otherwise, by the same conventions
 * the desktop app follows (Electron's userData), so both find the same files.
 */
export function defaultDataDir(platform: string, env: Record<string, string | undefined>, home: string): string {
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Runner Tray');
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Runner Tray');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'Runner Tray');
}

export function hostPaths(dataDir: string): HostPaths {
  return { dataDir, logDir: path.join(dataDir, 'logs') };
}
