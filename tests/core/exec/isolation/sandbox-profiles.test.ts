import { describe, expect, it } from 'vitest';
import { bubblewrapArgs, isolate, probeIsolation, seatbeltProfile, type IsolationSpec } from '../../../../main/core/exec/isolation';

const spec: IsolationSpec = {
  command: '/opt/node_modules/@anthropic-ai/claude-code/bin/claude.exe',
  args: ['-p', '--output-format', 'json'],
  cwd: '/home/op/.config/Runner Tray/turns/claude-cwd',
  env: { PATH: '/usr/bin', HOME: '/home/op' },
  home: '/home/op',
  writable: [
    '/home/op/.config/Runner Tray/turns/turn-u-1',
    '/home/op/.config/Runner Tray/turns/claude-cwd',
    '/home/op/.config/Runner Tray/turns/claude-config',
  ],
  readOnly: ['/opt/node_modules'],
  signIn: [{ source: '/home/op/.claude/.credentials.json', target: '/home/op/.claude/.credentials.json', writable: true }],
  hidden: ['/home/op', '/home/op/.config/Runner Tray'],
};
const mergedUsr = {
  entries: [
    { path: '/usr', kind: 'dir' as const },
    { path: '/bin', kind: 'symlink' as const, target: 'usr/bin' },
    { path: '/lib64', kind: 'symlink' as const, target: 'usr/lib64' },
    { path: '/etc', kind: 'dir' as const },
  ],
};

/** The bwrap options as [flag, ...operands] groups. */
function pairs(args: string[]): string[][] {
  const out: string[][] = [];
  const arity: Record<string, number> = {
    '--ro-bind': 2,
    '--bind': 2,
    '--ro-bind-try': 2,
    '--symlink': 2,
    '--proc': 1,
    '--dev': 1,
    '--tmpfs': 1,
    '--dir': 1,
    '--chdir': 1,
  };
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    const n = arity[args[i] as string] ?? 0;
    out.push(args.slice(i, i + 1 + n));
    i += n;
  }
  return out;
}

describe('bubblewrap', () => {
  const args = bubblewrapArgs(spec, mergedUsr);
  const groups = pairs(args);

  it('unshares everything but the network, dies with the runner, and runs the command after --', () => {
    expect(args.slice(0, 4)).toEqual(['--unshare-all', '--share-net', '--die-with-parent', '--new-session']);
    expect(args.slice(args.indexOf('--') + 1)).toEqual([spec.command, ...spec.args]);
    expect(groups).toContainEqual(['--chdir', spec.cwd]);
  });

  it('the system read-only, a fresh /proc (net masked), /dev and an empty /tmp and $HOME', () => {
    expect(groups).toContainEqual(['--ro-bind', '/usr', '/usr']);
    expect(groups).toContainEqual(['--ro-bind', '/etc', '/etc']);
    expect(groups).toContainEqual(['--symlink', 'usr/bin', '/bin']);
    expect(groups).toContainEqual(['--proc', '/proc']);
    expect(groups).toContainEqual(['--tmpfs', '/proc/net']);
    expect(groups).toContainEqual(['--tmpfs', '/tmp']);
    expect(groups).toContainEqual(['--dir', '/home/op']);
    // Nothing of $HOME or the app's data is bound whole.
    const bound = groups.filter((g) => g[0] === '--bind' || g[0] === '--ro-bind').map((g) => g[2]);
    expect(bound).not.toContain('/home/op');
    expect(bound).not.toContain('/home/op/.config/Runner Tray');
    expect(bound).not.toContain('/home/op/.claude');
  });

  it('the runtime read-only, the turn’s folders and the one sign-in file read-write, parents first', () => {
    expect(groups).toContainEqual(['--ro-bind', '/opt/node_modules', '/opt/node_modules']);
    for (const dir of spec.writable) expect(groups).toContainEqual(['--bind', dir, dir]);
    expect(groups).toContainEqual(['--bind', '/home/op/.claude/.credentials.json', '/home/op/.claude/.credentials.json']);
    const home = args.indexOf('/home/op');
    const firstBindUnderHome = args.findIndex((a, i) => i > home && a.startsWith('/home/op/'));
    expect(firstBindUnderHome).toBeGreaterThan(home);
    expect(args.indexOf('--tmpfs', args.indexOf('/proc/net'))).toBeLessThan(home);
  });
});

describe('sandbox-exec (macOS Seatbelt) profile', () => {
  const profile = seatbeltProfile({ ...spec, home: '/Users/op', hidden: ['/Users/op', '/Users/op/Library/Application Support/Runner Tray'] });

  it('denies by default, allows the network, and hides $HOME, the app data and the shared temp folders', () => {
    const lines = profile.trim().split('\n');
    expect(lines[0]).toBe('(version 1)');
    expect(lines[1]).toBe('(deny default)');
    expect(profile).toContain('(allow network*)');
    const deny = lines.find((l) => l.startsWith('(deny file-read*'));
    expect(deny).toContain('(subpath "/Users/op")');
    expect(deny).toContain('(subpath "/Users/op/Library/Application Support/Runner Tray")');
    expect(deny).toContain('(subpath "/private/tmp")');
    expect(deny).toContain('(subpath "/private/var/folders")');
    // Reading is allowed again only after the deny (the last matching rule wins).
    expect(lines.indexOf(deny as string)).toBeGreaterThan(lines.indexOf('(allow file-read*)'));
  });

  it('allows reading the runtime and the turn, writing only the turn’s folders and the sign-in file', () => {
    const lines = profile.trim().split('\n');
    const write = lines.find((l) => l.startsWith('(allow file-write*')) as string;
    for (const dir of spec.writable) expect(write).toContain(`(subpath "${dir}")`);
    expect(write).toContain('(literal "/home/op/.claude/.credentials.json")');
    expect(write).not.toContain('(subpath "/Users/op")');
    expect(write).not.toContain('/opt/node_modules');
    expect(profile).toMatch(/\(allow file-read\* \(subpath "\/opt\/node_modules"\)/);
  });

  it('quotes paths so a folder name cannot end the string', () => {
    const odd = seatbeltProfile({ ...spec, writable: ['/tmp/a"b\\c'] });
    expect(odd).toContain('(subpath "/tmp/a\\"b\\\\c")');
  });
});

describe('isolate and the probe', () => {
  it('wraps with the probed tool, or returns the command as is with the environment only', () => {
    expect(isolate(spec, { level: 'bubblewrap', tool: '/usr/bin/bwrap', note: null }, mergedUsr)).toMatchObject({
      command: '/usr/bin/bwrap',
      level: 'bubblewrap',
      env: spec.env,
    });
    const mac = isolate(spec, { level: 'sandbox-exec', tool: '/usr/bin/sandbox-exec', note: null });
    expect(mac.command).toBe('/usr/bin/sandbox-exec');
    expect(mac.args.slice(2)).toEqual([spec.command, ...spec.args]);
    expect(isolate(spec, { level: 'environment', tool: null, note: null })).toEqual({
      command: spec.command,
      args: spec.args,
      env: spec.env,
      cwd: spec.cwd,
      level: 'environment',
    });
  });

  it('uses bubblewrap only when a trial sandbox starts; says why otherwise', async () => {
    const works = async () => true;
    expect(await probeIsolation({ platform: 'linux', which: async () => '/usr/bin/bwrap', works })).toEqual({
      level: 'bubblewrap',
      tool: '/usr/bin/bwrap',
      note: null,
    });
    expect(await probeIsolation({ platform: 'linux', which: async () => null, works })).toMatchObject({
      level: 'environment',
      note: 'bubblewrap (bwrap) is not installed',
    });
    expect(await probeIsolation({ platform: 'linux', which: async () => '/usr/bin/bwrap', works: async () => false })).toMatchObject({
      level: 'environment',
      note: expect.stringMatching(/cannot create a sandbox/),
    });
    // User namespaces but no network namespace: still bubblewrap, with the host's network, and it says so.
    const noNetns = async (_tool: string, args: string[]) => args.includes('--share-net');
    expect(await probeIsolation({ platform: 'linux', which: async () => '/usr/bin/bwrap', works: noNetns })).toEqual({
      level: 'bubblewrap',
      tool: '/usr/bin/bwrap',
      note: 'bubblewrap cannot make a network namespace here: turns share the host network (no egress allowlist)',
      sharedNetworkOnly: true,
    });
    expect(await probeIsolation({ platform: 'darwin', which: async () => '/usr/bin/sandbox-exec', works })).toMatchObject({ level: 'sandbox-exec' });
    expect(await probeIsolation({ platform: 'win32', which: async () => null, works })).toMatchObject({
      level: 'environment',
      note: 'no OS sandbox is used on win32',
    });
  });
});
