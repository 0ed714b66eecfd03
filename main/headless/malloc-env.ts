/**
 * glibc's allocator settings the host runs with where it is started for the long run (the
 * service unit, the container image). By default glibc raises its mmap threshold each time
 * a large block is freed, so a turn that streams megabytes (64 kB pipe reads, event buffers,
 * the transcript's batches) leaves its buffers in the process's heap, where freed memory is
 * rarely returned: the RSS stayed +3–12 MB after a 10 MB turn. A fixed threshold (blocks of
 * 64 kB and up are mapped on their own, and unmapped when freed) with a trim threshold keeps
 * it within ±1 MB (docs/benchmarks.md, "A turn printing 10 MB"). glibc reads them when the
 * process starts, so they belong to whatever starts it; other C libraries ignore them.
 */
export const HOST_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '65536',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/** The allocator settings for a started host: the operator's own values, where set, win. */
export function hostMallocEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(HOST_MALLOC_ENV)) out[key] = env[key] ?? value;
  return out;
}
