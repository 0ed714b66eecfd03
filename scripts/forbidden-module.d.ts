// `electron` resolves here for Node-only code (main/core, main/headless, emulator),
// so an electron import there fails type-checking. The layering test checks it too.
export type ElectronIsNotAvailableHere = never;
