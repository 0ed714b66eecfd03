import { expect, it } from 'vitest';
import type { PairingRecord } from '../../emulator/domain/pairing';
import { pairingDecisionView } from '../../emulator/pages/views';
import { livePage } from '../../emulator/sechroom/pages/live-page';
import { launchSechroom } from './sechroom-helpers';

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/;
/** What a person reads: the page's text without its tags and attribute values. */
const text = (page: string) => page.replace(/<[^>]*>/g, ' ');

// The pages showed "2026-12-03T18:42:07.123Z" where a person looks for a time.
it('the pairing page shows its expiry in local time, with the exact instant kept in the markup', () => {
  const expires = '2026-12-03T18:42:07.123Z';
  const record: PairingRecord = {
    id: 'p1',
    user_code: 'ABCDEFGH',
    status: 'pending',
    name: 'studio',
    platform: 'linux',
    runner_version: null,
    hostname: null,
    source_ip: null,
    tenant_id: null,
    decided_by: null,
    runner_id: null,
    interval: 5,
    created_at: '2026-12-03T18:32:07.123Z',
    expires_at: expires,
  };
  const page = pairingDecisionView(record, 'csrf').value;
  expect(text(page)).not.toMatch(ISO);
  expect(page).toContain(`<time datetime="${expires}"`);
  expect(text(page)).toContain(new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(expires)));
});

it('the Sechroom live page shows instance and lease times in local time', async () => {
  const sr = await launchSechroom();
  try {
    const instance = await sr.register('codex-a');
    sr.sechroom.createTask({ title: 'Add CSV export', objective: 'Export invoices.', acceptance: 'A CSV downloads.' });
    await sr.claimHead(instance.id);
    const page = livePage(sr.sechroom);
    expect(page).toContain(`<time datetime="${instance.expiresAt}"`);
    expect(text(page)).not.toMatch(ISO);
  } finally {
    await sr.close();
  }
});
