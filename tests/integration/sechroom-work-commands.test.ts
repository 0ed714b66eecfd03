import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { runWorkCommand } from '../../main/headless/work-commands';

// The seed's work-brief / work-plan / work-task commands (B13) on the headless command line,
// against the emulator's Work Layer (its thin state machines for the same routes).

let emu: RunningEmulator | null = null;
let dir = '';
afterEach(async () => {
  await emu?.close();
  emu = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

async function world() {
  emu = await startEmulator({});
  dir = mkdtempSync(path.join(os.tmpdir(), 'rt-work-cmd-'));
  const minted = emu.sechroom.mintToken();
  const env = { SECHROOM_BASE_URL: emu.sechroomUrl, SECHROOM_TENANT: minted.tenant, SECHROOM_TOKEN: minted.access_token };
  const file = (name: string, content: unknown) => {
    const p = path.join(dir, name);
    writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
    return p;
  };
  const run = async (args: string[], stdin = '') => {
    let out = '';
    let err = '';
    const code = await runWorkCommand(args, {
      env,
      out: { write: (t: string) => (out += t) },
      err: { write: (t: string) => (err += t) },
      readFile: (f) => readFile(f, 'utf8'),
      readStdin: () => Promise.resolve(stdin),
    });
    expect(`${out}${err}`).not.toContain(minted.access_token);
    return { code, out, err };
  };
  return { emu, run, file };
}

const task = (title: string) => ({ title, objective: `Do ${title}.`, acceptance: 'It works.' });

describe('work-plan and work-task commands against the emulator', () => {
  it('create-from-tasks → accept → append (proposed until ratified) → accept again; each says the seed’s line', async () => {
    const { emu, run, file } = await world();
    const brief = emu.sechroom.createBrief({ title: 'Billing exports' });
    const created = await run([
      'work-plan',
      'create-from-tasks',
      brief.id,
      '--file',
      file('plan.json', { project: 'billing', tasks: [task('CSV'), task('PDF')] }),
    ]);
    expect(created).toMatchObject({ code: 0, out: expect.stringMatching(/^created wlp_\S+ from 2 hand-authored task\(s\)\n$/) });
    const plan = /created (wlp_\S+) from/.exec(created.out)![1]!;
    expect(emu.sechroom.listDecompositions().find((d) => d.id === plan)).toMatchObject({ status: 'Pending', taskCount: 2 });
    expect(emu.sechroom.openOffers()).toHaveLength(0);

    expect(await run(['work-plan', 'accept', plan])).toMatchObject({ code: 0, out: `accepted work plan ${plan} → Accepted\n` });
    expect(emu.sechroom.openOffers()).toHaveLength(2);

    // Appended to a running plan: proposed, not offered, until accepted again (ratified).
    const appended = await run(['work-plan', 'append', plan, '--file', '-'], JSON.stringify({ tasks: [task('XLSX')] }));
    expect(appended).toMatchObject({ code: 0, out: `appended 1 task(s) to ${plan}\n` });
    expect(emu.sechroom.listTasks({ decomposition_id: plan, status: 'proposed' }).map((t) => t.title)).toEqual(['XLSX']);
    expect(emu.sechroom.openOffers()).toHaveLength(2);
    expect(await run(['work-plan', 'accept', plan])).toMatchObject({ code: 0, out: `accepted work plan ${plan} → Accepted\n` });
    expect(emu.sechroom.openOffers()).toHaveLength(3);

    const listed = await run(['work-plan', 'list', '--brief', brief.id]);
    expect(listed).toMatchObject({ code: 0, out: 'listed 1 of 1 work plan(s)\n' });
    expect(await run(['work-task', 'list', '--status', 'ready', '--page-size', '2'])).toMatchObject({ code: 0, out: 'listed 2 of 3 work task(s)\n' });
    const json = await run(['work-plan', 'append', plan, '--json', '--file', file('one.json', { tasks: [task('ODS')] })]);
    expect(JSON.parse(json.out)).toMatchObject({ id: plan, landedAs: 'proposed', appendedTaskIds: [expect.stringMatching(/^mem_/)] });
  });

  it('resume a failed plan, return one for revision, create one from a brief, park a brief, read a card', async () => {
    const { emu, run } = await world();
    const failed = emu.sechroom.createDecomposition({ title: 'Flaky', status: 'Failed' });
    expect(await run(['work-plan', 'resume', failed.id])).toMatchObject({ code: 0, out: `resumed work plan ${failed.id} → Accepted\n` });
    // Only a Failed plan resumes: the Work Layer's refusal, exit 1.
    const again = await run(['work-plan', 'resume', failed.id]);
    expect(again).toMatchObject({ code: 1, err: expect.stringContaining(`runner-tray work-plan: work-plan resume failed: `) });
    expect(again.err).toContain('failed (409 invalid_transition)');

    const returned = await run(['work-plan', 'return-for-revision', failed.id, '--notes', 'split the export task']);
    expect(returned).toMatchObject({ code: 0, out: expect.stringMatching(new RegExp(`^returned ${failed.id} → wlp_\\S+\\n$`)) });

    const brief = emu.sechroom.createBrief({ title: 'Search' });
    expect(await run(['work-plan', 'create', brief.id])).toMatchObject({
      code: 0,
      out: expect.stringMatching(new RegExp(`^created work plan from ${brief.id} → wlp_\\S+\\n$`)),
    });
    expect(await run(['work-brief', 'park', brief.id, '--source', 'ops'])).toMatchObject({ code: 0, out: `park work brief ${brief.id} → status:parked\n` });
    expect(await run(['work-brief', 'unpark', brief.id, '--source', 'ops'])).toMatchObject({
      code: 0,
      out: `unpark work brief ${brief.id} → status:ready_for_decomposition\n`,
    });

    const t = emu.sechroom.createTask({ title: 'Card me', objective: 'Read it.' });
    expect(await run(['work-task', 'card', t.memoryId])).toMatchObject({ code: 0, out: `read card ${t.memoryId}\n` });
  });

  it('residue-produce and mark-no-residue: produced items, and the marker minted once per (plan, task)', async () => {
    const { emu, run, file } = await world();
    const t = emu.sechroom.createTask({ title: 'Document it' });
    const residues = file('residues.json', {
      residues: [
        { kind: 'doc', title: 'How to export', body: 'Click export.' },
        { kind: 'follow-up', body: 'PDF too' },
      ],
    });
    expect(await run(['work-task', 'residue-produce', t.memoryId, '--file', residues])).toMatchObject({
      code: 0,
      out: `produced 2 residue item(s) for ${t.memoryId}\n`,
    });
    // A bare array is a residues array too.
    expect(await run(['work-task', 'residue-produce', t.memoryId, '--file', '-'], '[{"kind":"decision","body":"CSV first"}]')).toMatchObject({
      code: 0,
      out: `produced 1 residue item(s) for ${t.memoryId}\n`,
    });
    const mark = ['work-task', 'mark-no-residue', t.memoryId, '--decomposition', t.decompositionId];
    expect(await run(mark)).toMatchObject({ code: 0, out: `marked ${t.memoryId} no-residue (minted: true)\n` });
    expect(await run(mark)).toMatchObject({ code: 0, out: `marked ${t.memoryId} no-residue (minted: false)\n` });
  });

  it('input files fail with the seed’s messages, word for word; a bad command line exits 2', async () => {
    const { emu, run, file } = await world();
    const t = emu.sechroom.createTask({ title: 'x' });
    const plan = t.decompositionId;
    const bad = file('bad.json', '{"tasks": [');
    const cases: [string[], string][] = [
      [['work-plan', 'append', plan, '--file', bad], `${bad} is not valid JSON: `],
      [['work-plan', 'append', plan, '--file', file('none.json', { task: [] })], `${path.join(dir, 'none.json')} must contain an object with a tasks array`],
      [
        ['work-plan', 'create-from-tasks', 'mem_x', '--file', file('arr.json', [task('a')])],
        `${path.join(dir, 'arr.json')} must contain an object with a tasks array`,
      ],
      [
        ['work-task', 'residue-produce', t.memoryId, '--file', file('empty.json', { residues: [] })],
        `${path.join(dir, 'empty.json')} must contain a non-empty residues array`,
      ],
      [['work-task', 'residue-produce', t.memoryId, '--file', file('kindless.json', [{ body: 'x' }])], `${path.join(dir, 'kindless.json')}: residues.0.kind: `],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      expect({ args, code: r.code, err: r.err }).toMatchObject({ code: 1, err: expect.stringContaining(message) });
    }
    expect((await run(['work-plan', 'resume'])).code).toBe(2);
    expect((await run(['work-plan', 'explode', plan])).code).toBe(2);
    expect((await run(['work-task', 'mark-no-residue', t.memoryId])).err).toContain('--decomposition <wlp_…> is required');
  });
});
