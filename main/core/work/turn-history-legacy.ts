import { errorText } from '../../../shared/errors';
import { readFile, rename } from 'node:fs/promises';
import { z } from 'zod';
import { TurnViewSchema, type TurnView } from '../../../shared/turns';
import type { Logger } from '../base/ports';

const FileSchema = z.object({ version: z.literal(1), turns: z.array(z.unknown()) });

/**
 * The rows of a version-1 history file (one JSON document, newest first), read once to
 * convert it: every row is parsed, a bad row is dropped and reported, a damaged file is
 * set aside and reported. No file: no rows.
 */
export async function readLegacyHistory(file: string, log: Logger, limit: number): Promise<TurnView[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('the turn history could not be read', { error: errorText(error) });
    return [];
  }
  let parsed: z.infer<typeof FileSchema>;
  try {
    parsed = FileSchema.parse(JSON.parse(text));
  } catch (error) {
    const aside = `${file}.damaged-${Date.now()}`;
    await rename(file, aside).catch(() => undefined);
    log.warn('the turn history file was damaged; it was set aside and history starts empty', { keptAs: aside, error: errorText(error) });
    return [];
  }
  const turns: TurnView[] = [];
  let dropped = 0;
  for (const raw of parsed.turns.slice(0, limit)) {
    const row = TurnViewSchema.safeParse(raw);
    if (row.success) turns.push(row.data);
    else dropped++;
  }
  if (dropped > 0) log.warn('dropped unreadable rows of the turn history', { dropped });
  return turns;
}
