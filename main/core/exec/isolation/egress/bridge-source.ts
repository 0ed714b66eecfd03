/**
 * The in-sandbox half of the egress design, run as `node -e BRIDGE_SOURCE -- <config> <command> <args…>`
 * by the Node that runs the CLIs' `.js` launchers (it ships inside the bundle as this
 * string, so nothing has to be unpacked from the asar). In a network namespace of its own
 * the turn has only a loopback interface; the bridge:
 *
 * 1. listens on 127.0.0.1:<free port> and pipes every connection to the host proxy's unix
 *    socket (the turn's HTTP(S)_PROXY);
 * 2. listens on 127.0.0.1:P for every allowed loopback origin P and tunnels it through the
 *    proxy (CONNECT 127.0.0.1:P), so a base URL such as http://127.0.0.1:P stays as it is;
 * 3. only then spawns the command with stdio inherited and the proxy variables set,
 *    forwards SIGTERM/SIGINT/SIGHUP to it and ends with its exit code (or its signal).
 *
 * With `handoff` (the exec driver's turns) the command, its environment and the loopback
 * ports are not on the command line: they come as one JSON line `{command, args, env,
 * forwards}` on fd 3, and the bridge answers `{spawned}` (or `{spawnError}`) there, as
 * the lifeline launcher does. So the sandbox and the bridge's own Node start can happen
 * before the turn is claimed (warm-sandbox.ts): bubblewrap's command line, and with it
 * every bind and namespace, is the same either way.
 *
 * bwrap --die-with-parent stays the parent-death watch: the bridge is a process of the
 * turn's pid namespace, which goes when bwrap goes. Plain CommonJS, no dependencies.
 */
export const BRIDGE_SOURCE = String.raw`'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const config = JSON.parse(process.argv[1]);
const socketPath = config.socket;

function pair(a, b) {
  a.on('error', () => { a.destroy(); b.destroy(); });
  b.on('error', () => { a.destroy(); b.destroy(); });
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

function tunnel(client, port) {
  const upstream = net.connect(socketPath);
  let buffered = Buffer.alloc(0);
  client.pause();
  client.on('error', () => { client.destroy(); upstream.destroy(); });
  upstream.on('error', () => { client.destroy(); upstream.destroy(); });
  upstream.once('connect', () => upstream.write('CONNECT 127.0.0.1:' + port + ' HTTP/1.1\r\nhost: 127.0.0.1:' + port + '\r\n\r\n'));
  const onData = (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0) {
      if (buffered.length > 8192) { client.destroy(); upstream.destroy(); }
      return;
    }
    upstream.off('data', onData);
    if (!/^HTTP\/1\.[01] 200/.test(buffered.subarray(0, end).toString('latin1'))) { client.destroy(); upstream.destroy(); return; }
    const rest = buffered.subarray(end + 4);
    if (rest.length > 0) client.write(rest);
    pair(client, upstream);
    client.resume();
  };
  upstream.on('data', onData);
}

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => { server.off('error', reject); server.on('error', () => undefined); resolve(server.address().port); });
  });
}

// The handoff's command line on fd 3 (the host holds the other end until the turn ends).
function handoff() {
  return new Promise((resolve, reject) => {
    const line = new net.Socket({ fd: 3, readable: true, writable: true });
    let text = '';
    line.on('error', () => undefined);
    line.on('close', () => reject(new Error('the host closed the handoff before sending the command')));
    const onData = (chunk) => {
      text += chunk.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      line.off('data', onData);
      line.removeAllListeners('close');
      line.on('data', () => undefined);
      resolve({ line, launch: JSON.parse(text.slice(0, nl)) });
    };
    line.on('data', onData);
  });
}

async function main() {
  const given = config.handoff ? await handoff() : null;
  const launch = given ? given.launch : { command: process.argv[2], args: process.argv.slice(3), env: null, forwards: config.forwards };
  const proxy = net.createServer((client) => pair(client, net.connect(socketPath)));
  const proxyPort = await listen(proxy, 0);
  await Promise.all(launch.forwards.map((port) => listen(net.createServer((client) => tunnel(client, port)), port)));
  const url = 'http://127.0.0.1:' + proxyPort;
  const env = { ...(launch.env || process.env) };
  for (const name of config.dropEnv) delete env[name];
  Object.assign(env, { HTTPS_PROXY: url, HTTP_PROXY: url, https_proxy: url, http_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: 'localhost,127.0.0.1,::1', no_proxy: 'localhost,127.0.0.1,::1' });
  const child = spawn(launch.command, launch.args, { stdio: 'inherit', env });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  if (given) child.on('spawn', () => given.line.write(JSON.stringify({ spawned: child.pid }) + '\n'));
  child.on('error', (error) => {
    process.stderr.write('runner-tray egress bridge: ' + error.message + '\n');
    if (!given || child.pid !== undefined) process.exit(127);
    given.line.end(JSON.stringify({ spawnError: { code: error.code || 'ESPAWN', message: error.message } }) + '\n', () => process.exit(127));
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

main().catch((error) => { process.stderr.write('runner-tray egress bridge: ' + error.message + '\n'); process.exit(126); });
`;

export interface BridgeConfig {
  /** The proxy's socket inside the sandbox. */
  socket: string;
  /** Loopback ports served at their own number. */
  forwards: number[];
  /** Variables the bridge needs (ELECTRON_RUN_AS_NODE) but the command must not get. */
  dropEnv: string[];
  /** The command comes on fd 3 (see above): then `forwards` is empty here and comes with it. */
  handoff?: boolean;
}

/** What a handoff bridge is sent on fd 3: the command it starts, its whole environment and the loopback ports it serves. */
export interface BridgeHandoff {
  command: string;
  args: string[];
  env: Record<string, string>;
  forwards: number[];
}

/** The argv that runs `command args` through the bridge with `node` (process.execPath); with a handoff, no command. */
export function bridgeArgs(config: BridgeConfig, command: string | null, args: readonly string[]): string[] {
  return ['-e', BRIDGE_SOURCE, '--', JSON.stringify(config), ...(command === null ? [] : [command, ...args])];
}
