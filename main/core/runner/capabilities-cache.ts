import { readFile, stat } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { RuntimeInfoSchema } from '../../../shared/runner';
import type { Capabilities, RuntimeCapability } from './capabilities';

/** What detection found (the snapshot's runtime info without its derived `ready`). */
const CapabilitySchema = RuntimeInfoSchema.omit({ ready: true });
/** The detected binary's file as it was then (null: none found). */
const BinarySchema = z.object({ size: z.number(), mtimeMs: z.number() }).nullable();
/** The binaries detection was asked for (a name looked up on PATH, or the path RUNNER_TRAY_CLAUDE_BIN / _CODEX_BIN gave). */
const AskedSchema = z.object({ claude: z.string(), codex: z.string() });
export type AskedBinaries = z.infer<typeof AskedSchema>;
const FileSchema = z.object({
  version: z.literal(1),
  /** Absent in files from before it was kept: such a file is not used (it cannot say it was about the same binaries). */
  asked: AskedSchema.optional(),
  runtimes: z.object({
    claude: z.object({ capability: CapabilitySchema, binary: BinarySchema }),
    codex: z.object({ capability: CapabilitySchema, binary: BinarySchema }),
  }),
});

async function binaryStamp(capability: RuntimeCapability): Promise<{ size: number; mtimeMs: number } | null> {
  if (!capability.path) return null;
  try {
    const s = await stat(capability.path);
    return { size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return null;
  }
}

/**
 * The last runtime detection, kept in the data folder so that a restart's first heartbeat
 * need not wait for the CLIs (detection spawns each of them twice: about a second with the
 * real ones). It is used only while every detected binary is the same file (size and
 * modification time) as when it was detected, only while the runner asks for the same
 * binaries (another RUNNER_TRAY_CLAUDE_BIN / _CODEX_BIN means the last detection is about a
 * binary no turn should run), and only until the fresh detection that starts with the
 * runner replaces it.
 */
export class CapabilitiesCache {
  constructor(private readonly file: string) {}

  /** `asked`: the binaries this run asks for; the last detection is used only if it asked for the same. */
  async load(asked?: AskedBinaries): Promise<Capabilities | null> {
    let parsed: z.infer<typeof FileSchema>;
    try {
      parsed = FileSchema.parse(JSON.parse(await readFile(this.file, 'utf8')));
    } catch {
      return null;
    }
    if (asked && (parsed.asked?.claude !== asked.claude || parsed.asked.codex !== asked.codex)) return null;
    for (const entry of Object.values(parsed.runtimes)) {
      const now = await binaryStamp(entry.capability);
      if (JSON.stringify(now) !== JSON.stringify(entry.binary)) return null;
    }
    return { claude: parsed.runtimes.claude.capability, codex: parsed.runtimes.codex.capability };
  }

  async save(capabilities: Capabilities, asked?: AskedBinaries): Promise<void> {
    const entry = async (capability: RuntimeCapability) => ({ capability, binary: await binaryStamp(capability) });
    const body: z.infer<typeof FileSchema> = {
      version: 1,
      ...(asked ? { asked: { claude: asked.claude, codex: asked.codex } } : {}),
      runtimes: { claude: await entry(capabilities.claude), codex: await entry(capabilities.codex) },
    };
    await writeFileAtomic(this.file, JSON.stringify(body), { mode: 0o600 });
  }
}
