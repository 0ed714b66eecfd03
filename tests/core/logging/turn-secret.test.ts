import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../main/core/logging/logger';

describe('a unit’s MCP token and the logger', () => {
  it('is redacted from every line while its turn runs (also when a runtime echoes it), and registration is counted', async () => {
    const logging = await createLogger({ dir: null, level: 'debug' });
    const token = 'unit-token-plain-words-without-shape';
    const releaseA = logging.addTurnSecret(token);
    const releaseB = logging.addTurnSecret(token); // a retried unit with the same token
    logging.logger.info(`runtime said: using ${token}`);
    releaseA();
    releaseA(); // twice is once
    logging.logger.info(`still running: ${encodeURIComponent(token)}`);
    releaseB();
    logging.logger.info(`after the turn: ${token}`);
    const lines = logging.recent(10).map((e) => e.msg);
    expect(lines).toEqual(['runtime said: using [REDACTED]', 'still running: [REDACTED]', `after the turn: ${token}`]);
    await logging.close();
  });
});
