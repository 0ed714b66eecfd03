import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFile, checkRepo, importSpecifiers, listSources } from './layering';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('layering (DESIGN.md)', () => {
  it('holds across the whole tree', () => {
    expect(listSources(repoRoot).length).toBeGreaterThan(10);
    expect(checkRepo(repoRoot)).toEqual([]);
  });

  it('sees every import form', () => {
    const src = `import a from 'x1';\nimport { b } from "x2";\nimport 'x3';\nexport * from 'x4';\nconst c = await import('x5');\nconst d = require('x6');\nimport type { T } from 'x7';`;
    expect(importSpecifiers(src)).toEqual(['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7']);
  });

  it.each([
    ['main/core/runner.ts', "import { app } from 'electron';", 'only main/electron and preload import electron'],
    ['main/core/runner.ts', "import 'electron';", 'only main/electron and preload import electron'],
    ['main/core/runner.ts', "import { tray } from '../electron/tray';", 'main/core depends on nothing but shared/'],
    ['main/headless/server.ts', "const e = require('electron');", 'only main/electron and preload import electron'],
    ['shared/contract.ts', "import fs from 'node:fs';", 'shared/ is pure: no Node modules'],
    ['shared/contract.ts', "import path from 'path';", 'shared/ is pure: no Node modules'],
    ['shared/contract.ts', "import { useState } from 'react';", 'shared/ is pure: no React or DOM'],
    ['renderer/src/app.tsx', "import { readFile } from 'fs/promises';", 'renderer/ never imports Node'],
    ['renderer/src/app.tsx', "import { ipcRenderer } from 'electron';", 'only main/electron and preload import electron'],
    ['renderer/src/app.tsx', "import { createHost } from '../../main/core/host';", 'renderer/ talks to main only through the bridge'],
    ['main/electron/main.ts', "import { startEmulator } from '../../emulator';", 'the app never imports the emulator'],
  ])('flags %s importing %s', (file, source, rule) => {
    const violations = checkFile(file, source);
    expect(violations.map((v) => v.rule).join('\n')).toContain(rule);
  });

  it.each([
    ['main/electron/main.ts', "import { app } from 'electron';"],
    ['preload/preload.ts', "import { contextBridge } from 'electron';"],
    ['main/core/host.ts', "import os from 'node:os'; import { commands } from '../../shared/contract';"],
    ['renderer/src/app.tsx', "import { commands } from '../../shared/contract'; import { create } from 'zustand';"],
    ['shared/contract.ts', "import { z } from 'zod'; import { x } from './status';"],
  ])('allows %s', (file, source) => {
    expect(checkFile(file, source)).toEqual([]);
  });
});
