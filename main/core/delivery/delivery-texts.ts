import type { Verdict } from '../../../shared/protocol/sechroom';

/*
 * The texts of a delivery, as the Sechroom seed writes them (sechroom-protocol.md B11):
 * the branch name, the commit message and its trailer, the PR's title and body, and the
 * notes the completion carries. The Work Layer's readers and reviewers see these, so they
 * stay word for word.
 */

export interface DeliveryTask {
  /** The claim's memoryId. */
  taskId: string;
  title: string;
  verdict: Verdict;
  /** The instance's lane id, else its instance key (the trailer says who delivered). */
  deliveredBy: string;
}

/** Lower case; every run of other characters one dash; no dash at either end. Never empty. */
export function slug(taskId: string): string {
  const s = taskId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  // The seed would make `task/` (not a branch name) from an id without a letter or digit.
  return s || 'task';
}

/** `task/<slug>`, then `-2`, `-3`… : the first that `taken` says is free. */
export async function firstFreeBranch(taskId: string, taken: (branch: string) => Promise<boolean>): Promise<string> {
  const base = `task/${slug(taskId)}`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await taken(candidate))) return candidate;
  }
}

/** Every line break, control character and run of spaces one space, so a text never starts a line of its own. */
export function oneLine(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A title from the control plane (a task's, so a prompt's author's) as one line with no
 * trailer syntax: `Signed-off-by: x` becomes `Signed-off-by x`, so git and the readers
 * that parse trailers never see one the runner did not write.
 */
export function safeTitle(title: string): string {
  return oneLine(title).replace(/([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)\s*:(?=\s|$)/g, (_, key: string) => key);
}

export function commitMessage(task: DeliveryTask): string {
  return [
    `task(${oneLine(task.taskId)}): ${safeTitle(task.title)} [verdict:${task.verdict}]`,
    '',
    'Driven-executor delivery (FR-sechroom-496): work produced by the sandboxed codex turn, landed by the driver.',
    '',
    `Delivered-By: sechroom executor run (${oneLine(task.deliveredBy)})`,
  ].join('\n');
}

export function prTitle(task: DeliveryTask): string {
  return `task(${oneLine(task.taskId)}): ${safeTitle(task.title)}`;
}

export function prBody(task: DeliveryTask, shortSha: string): string {
  return [
    `Driven-executor delivery for WLP task \`${task.taskId}\` (verdict: ${task.verdict}, commit ${shortSha}).`,
    '',
    "Work produced by a sandboxed codex turn and landed by the unsandboxed driver (FR-sechroom-496). Review against the task's acceptance before merge.",
  ].join('\n');
}

/** The first line of a program's output, trimmed. */
export function firstLine(text: string): string {
  return text.trim().split('\n', 1)[0]!.trim();
}

/** git's and gh's words may quote a remote's address; a user or token in it never reaches a note. */
export function withoutUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1');
}

export const notes = {
  statusFailed: (stderr: string) => `delivery skipped — git status failed: ${withoutUrlCredentials(stderr.trim())}`,
  nothing: 'no file changes produced by the turn — nothing to deliver',
  failed: (reason: string) => `delivery FAILED — ${withoutUrlCredentials(reason)}`,
  delivered: (paths: number, branch: string, shortSha: string, prUrl: string | null) =>
    `delivered ${paths} path(s) to ${branch} @ ${shortSha}${prUrl ? ` — PR ${prUrl}` : ''}`,
  pushFailed: (stderr: string) => `push failed (${withoutUrlCredentials(firstLine(stderr))}) — branch is local-only`,
  prFailed: (reason: string, branch: string) => `PR raise failed (${withoutUrlCredentials(reason)}) — raise manually from ${branch}`,
};

/** What the completion's text ends with (the seed appends it to the closeout text). */
export function completionSuffix(note: string): string {
  return `\n\nDelivery: ${note}`;
}
