import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { archViolations, coreGraph, folderOf, type CoreGraph } from '../../scripts/arch.mjs';
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

  describe('inside main/core (scripts/arch.mjs, docs/architecture.md)', () => {
    it('no import runs up a layer, sideways, or from one plane into the other', () => {
      const graph = coreGraph(repoRoot);
      expect(graph.nodes.length).toBeGreaterThan(100);
      expect(graph.edges.length).toBeGreaterThan(300);
      expect(archViolations(graph)).toEqual([]);
    });

    it('each plane is one folder', () => {
      const graph = coreGraph(repoRoot);
      const planeFiles = graph.nodes.filter((n) => /(rost|sechroom)/.test(n.file.split('/').pop() ?? ''));
      for (const n of planeFiles) expect(n.folder, n.file).toMatch(/^planes\/(rost|sechroom)$/);
    });

    const graphOf = (...edges: [string, string][]): CoreGraph => ({
      nodes: [...new Set(edges.flat())].map((file) => ({ file, folder: folderOf(file), lines: 1 })),
      edges: edges.map(([from, to]) => ({ from, to })),
    });

    it.each([
      ['main/core/base/ports.ts', 'main/core/exec/executor.ts', 'above it'],
      ['main/core/sessions/claim-loop.ts', 'main/core/planes/rost/connector.ts', 'above it'],
      ['main/core/work/turn-registry.ts', 'main/core/runner/pause-state.ts', 'beside it'],
      ['main/core/planes/rost/unit-lease.ts', 'main/core/planes/sechroom/lease-keeper.ts', 'a plane never imports another plane'],
      ['main/core/planes/rost/unit-lease.ts', 'main/core/bootstrap.ts', 'above it'],
      ['main/core/newthing/x.ts', 'main/core/base/ports.ts', 'has no layer'],
    ])('flags %s importing %s', (from, to, rule) => {
      expect(
        archViolations(graphOf([from, to]))
          .map((v) => v.rule)
          .join('\n'),
      ).toContain(rule);
    });

    it('allows imports down the layers', () => {
      expect(
        archViolations(
          graphOf(
            ['main/core/planes/sechroom/claim-path.ts', 'main/core/sessions/machine-slots.ts'],
            ['main/core/bootstrap.ts', 'main/core/planes/rost/rost-factory.ts'],
          ),
        ),
      ).toEqual([]);
    });
  });
});
