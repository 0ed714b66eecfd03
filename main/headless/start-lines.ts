import { z } from 'zod';
import { redactText } from '../../shared/redact';
import type { Core } from '../core/bootstrap';
import { mentionDefaultSeedFile, takeOverStateFile } from './seed-state-file';

type Out = { write(text: string): unknown };

const WarningsSchema = z.object({ warnings: z.array(z.string()) });

/** The lines before the runner's own: what loading the settings met, then the state file taken over (or pointed at). */
export async function writeStartLines(core: Core, importStateFile: string | undefined, out: Out): Promise<void> {
  await writeSettingsWarnings(core, out);
  if (importStateFile) await takeOverStateFile(core, importStateFile, out);
  else await mentionDefaultSeedFile(core, out);
}

/**
 * A damaged settings file set aside and what was reset, on the terminal as the window's
 * banner says it: a headless host's operator reads the terminal or the journal, not the
 * Settings tab. A warning several profiles share (the host's own file) is said once.
 */
async function writeSettingsWarnings(core: Pick<Core, 'host' | 'profiles'>, out: Out): Promise<void> {
  const said = new Set<string>();
  for (const { id } of core.profiles.list()) {
    const result = await core.host.invoke('settings:get', { profile: id });
    const parsed = result.ok ? WarningsSchema.safeParse(result.value) : null;
    for (const warning of parsed?.success ? parsed.data.warnings : []) {
      if (said.has(warning)) continue;
      said.add(warning);
      out.write(`Settings: ${redactText(warning)}\n`);
    }
  }
}
