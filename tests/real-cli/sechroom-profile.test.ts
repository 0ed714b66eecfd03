import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import type { ProfileSummary } from '../../shared/profiles';
import { startHarness, type Harness } from '../integration/core-harness';
import { gitOrigin, type GitOrigin } from '../integration/git-origin';
import { startResponsesStub, type ResponsesRecordedRequest, type ResponsesReply, type ResponsesStub } from '../stubs/openai-responses-stub';
import { CODEX_BIN, codexEnv, tempDir } from './real-cli-env';

// A Sechroom profile in the real core, its task's turn on the real `codex app-server`
// (codex-cli 0.171.0, against the loopback Responses stub) launched through the host's
// isolation in the task's git worktree, then completed with the delivery note.

function closingModel(req: ResponsesRecordedRequest): ResponsesReply {
  const outputs = req.body.input.filter((item) => item.type === 'function_call_output').length;
  if (outputs === 0)
    return { kind: 'function_call', name: 'sechroom_closeout', arguments: { terminal_status: 'completed', summary: 'Nothing to change.', evidence: ['read'] } };
  return { kind: 'text', text: 'CLOSED OUT' };
}

describe('a Sechroom profile on the real codex app-server', () => {
  let api: ResponsesStub;
  let home: ReturnType<typeof tempDir>;
  let h: Harness | null = null;
  let emu: RunningEmulator | null = null;
  let repo: GitOrigin | null = null;

  beforeAll(async () => {
    api = await startResponsesStub();
    home = tempDir('sechroom-profile-codex-home');
  });
  afterEach(async () => {
    await h?.close();
    await emu?.close();
    repo?.cleanup();
    h = emu = repo = null;
  });
  afterAll(async () => {
    await api?.close();
    home?.remove();
  });

  it('claims a task, runs the real codex turn in the task worktree and completes pass with the delivery note', async () => {
    repo = gitOrigin();
    emu = await startEmulator({});
    const minted = emu.sechroom.mintToken();
    api.respond = closingModel;
    h = await startHarness({
      emu,
      core: { runtimeEnv: codexEnv(home.dir, api.baseUrl), env: { ...process.env, SECHROOM_TOKEN: minted.access_token } },
    });
    await h.invoke<ProfileSummary>('profiles:add', { name: 'Work', connector: 'sechroom' });
    await h.invoke('sechroom:configure', {
      profile: 'work',
      baseUrl: emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-a', root: repo.root, pollIntervalSeconds: 1, codexBin: CODEX_BIN, usageReservePercent: 0 },
      raisePr: false,
    });
    const task = emu.sechroom.createTask({ title: 'Check the export', objective: 'Look, change nothing.' });
    const done = await h
      .waitForEvent('turns:update', (u) => u.finished.some((t) => t.plane === 'sechroom'), 90_000)
      .then((u) => u.finished.find((t) => t.plane === 'sechroom')!);
    expect(done).toMatchObject({ profile: 'work', verdict: 'pass', git: { branch: null, pushed: false } });
    const [completion] = emu.sechroom.listCompletions({ memory_id: task.memoryId });
    expect(completion!.text).toMatch(/^Nothing to change\./);
    expect(completion!.text).toContain(`\n\nDelivery: ${done.git!.note}`);
    expect(api.requests[0]!.raw).toContain('"sechroom_closeout"');
  }, 120_000);
});
