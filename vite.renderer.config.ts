import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Build tooling, kept outside renderer/ so that folder holds only code that runs in the page.
const root = fileURLToPath(new URL('./renderer', import.meta.url));

export default defineConfig({
  root,
  // Relative asset paths: the same build loads from app://renderer/ in Electron and
  // from the headless host's root.
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
  },
});
