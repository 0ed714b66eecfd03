// Types for scripts/check-fuses.mjs (plain JavaScript, run by Node after electron-builder).
/** `electronFuses:` of electron-builder.yml, keyed by @electron/fuses' FuseV1Options names. */
export function expectedFuses(yaml: string): Record<string, boolean>;
/** The fuses of `binary` that differ from `expected`, as lines; [] when all hold. */
export function fuseMismatches(binary: string, expected: Record<string, boolean>): Promise<string[]>;
/** The packaged Electron binaries under a release folder. */
export function packagedBinaries(dir: string): string[];
