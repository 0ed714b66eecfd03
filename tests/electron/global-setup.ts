import { findElectronBinary, INSTALL_HINT } from './electron-binary';

/** Says once, up front, why the smoke test will be skipped (the list reporter does not). */
export default function globalSetup(): void {
  const binary = findElectronBinary();
  if (!binary.found) console.log(`\nElectron smoke test skipped: ${binary.reason}; ${INSTALL_HINT}.\n`);
}
