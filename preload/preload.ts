/**
 * The preload (bundled to one CommonJS file, dist/electron/preload.cjs: a sandboxed
 * preload can `require('electron')` and little else). It exposes the contract's API in
 * the isolated world's bridge and nothing more.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { z } from 'zod';
import { createRunnerTrayApi } from './runner-tray-api';

// zod compiles fast parsers with `new Function` when it may; the page's CSP forbids eval,
// so skip the attempt (and the CSP violation report it would cause) and parse plainly.
z.config({ jitless: true });

// ipcRenderer stays in here: the page gets one method per contract command, never it.
const api = createRunnerTrayApi(ipcRenderer);
contextBridge.exposeInMainWorld('runnerTray', api);
