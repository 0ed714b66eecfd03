import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listSources } from './layering';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A comment that cites the tracker ("issue 18", "#26") instead of saying what the code does. */
const TRACKER = /(?:\/\/|\/\*|^\s*\*).*?(?:\b[Ii]ssues? \d+\b|(?<![&\w])#\d{1,4}\b(?![0-9a-fA-F]))/;

export function trackerRefs(source: string): string[] {
  return source.split('\n').filter((line) => TRACKER.test(line));
}

describe('comments say what the code does, not which ticket asked for it', () => {
  it('no source file cites a tracker number', () => {
    const found = listSources(repoRoot).flatMap((rel) => trackerRefs(readFileSync(path.join(repoRoot, rel), 'utf8')).map((line) => `${rel}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('sees the forms a citation takes, and leaves colours and entities alone', () => {
    expect(trackerRefs('/** The Work view (issue 18). */\n// see #26\n * issues 12 and 13')).toHaveLength(3);
    expect(trackerRefs("const c = '#6b7280'; // grey\nreturn '&#39;';\n// heartbeat ok #1 is the first")).toHaveLength(1);
  });
});
