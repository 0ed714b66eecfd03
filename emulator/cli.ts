import { parseArgs } from 'node:util';
import { DEMO_OPERATORS } from './demo/demo-seed';
import { startEmulator } from './index';
import { errorText } from '../shared/errors';

const USAGE = `Usage: npm run emulator -- [--port 7457] [--db <file>|:memory:] [--seed demo] [--no-trickle] [--quiet]

  --port        TCP port on 127.0.0.1 (default 7457; 0 picks a free one)
  --db          SQLite file (default .tmp/emulator.sqlite) or :memory:
  --seed demo   create a demo tenant, operators, project and build requests, a Work Layer brief, plan and tasks,
                and trickle turn executions and Work Layer tasks
  --no-trickle  with --seed demo: do not enqueue the periodic demo work
  --quiet       do not log requests`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '7457' },
      db: { type: 'string', default: '.tmp/emulator.sqlite' },
      seed: { type: 'string', default: 'none' },
      'no-trickle': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error('--port must be an integer 0..65535');
  if (values.seed !== 'demo' && values.seed !== 'none') throw new Error('--seed must be demo or none');
  const demo = values.seed === 'demo';
  const emulator = await startEmulator({ port, db: values.db, seed: values.seed, log: !values.quiet, trickle: demo && !values['no-trickle'] });
  const lines = [
    `Control plane emulator on ${emulator.url} (db: ${values.db})`,
    `  pair a runner:     ${emulator.url}/device`,
    `  dev sign-in:       ${emulator.url}/signin${demo ? `  (${DEMO_OPERATORS.map((o) => `${o.name}: ${o.role}`).join(', ')})` : ''}`,
    `  OAuth metadata:    ${emulator.url}/.well-known/oauth-authorization-server`,
    `  admin API:         ${emulator.url}/_emulator/`,
    `Sechroom Work Layer on ${emulator.sechroomUrl}`,
    `  live view:         ${emulator.url}/_emulator/sechroom/live`,
    `  SECHROOM_TOKEN:    curl -s -X POST ${emulator.url}/_emulator/sechroom/tokens -H 'content-type: application/json' -d '{}'`,
    `  admin API:         ${emulator.url}/_emulator/sechroom/`,
  ];
  if (demo) lines.push(`  demo trickle:      ${values['no-trickle'] ? 'off' : 'a turn execution and a Work Layer task every 20–40 s'}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  const stop = () => {
    void emulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`emulator: ${errorText(error)}\n${USAGE}\n`);
  process.exit(1);
});
