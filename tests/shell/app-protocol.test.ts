import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENDERER_CSP } from '../../shared/csp';
import { createAppProtocolHandler, isRendererUrl, registerAppScheme, resolveInside, RENDERER_URL } from '../../main/electron/app-protocol';
import { FakeProtocol } from './fake-electron';

let base: string;
let root: string;
let handler: (request: Request) => Promise<Response>;

beforeAll(async () => {
  // dist/renderer with a secret next to it, which no URL may reach.
  base = await mkdtemp(path.join(os.tmpdir(), 'rt-protocol-'));
  root = path.join(base, 'renderer');
  await mkdir(path.join(root, 'assets'), { recursive: true });
  await writeFile(path.join(root, 'index.html'), '<!doctype html><title>Runner Tray</title>');
  await writeFile(path.join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(path.join(root, 'assets', 'index-abc.css'), 'body{}');
  await writeFile(path.join(base, 'secret.txt'), 'runner secret');
  handler = createAppProtocolHandler({ rootDir: root });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const get = (url: string, init?: RequestInit) => handler(new Request(url, init));

describe('app:// protocol', () => {
  it('serves the renderer with the CSP header and the right types', async () => {
    const page = await get(RENDERER_URL);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(RENDERER_CSP);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('<title>Runner Tray</title>');

    const script = await get('app://renderer/assets/index-abc.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toBe(RENDERER_CSP);
    const style = await get('app://renderer/assets/index-abc.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await get('app://renderer/')).status).toBe(200);
  });

  it('puts the CSP on refusals too', async () => {
    for (const response of [
      await get('app://renderer/missing.js'),
      await get('app://elsewhere/index.html'),
      await get(RENDERER_URL, { method: 'POST', body: 'x' }),
    ]) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers.get('content-security-policy')).toBe(RENDERER_CSP);
    }
  });

  it.each([
    'app://renderer/..%2fsecret.txt',
    'app://renderer/..%2F..%2Fsecret.txt',
    'app://renderer/assets/..%2f..%2fsecret.txt',
    'app://renderer/%2e%2e%2fsecret.txt',
    'app://renderer/..%5csecret.txt',
    'app://renderer/%2fetc%2fpasswd',
    'app://renderer/index.html%00.js',
    'app://renderer/%E0%A4%A',
  ])('refuses to leave dist/renderer: %s', async (url) => {
    const response = await get(url);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('runner secret');
  });

  it('resolves paths only inside the root', () => {
    expect(resolveInside(root, '/')).toBe(path.join(root, 'index.html'));
    expect(resolveInside(root, '/assets/index-abc.js')).toBe(path.join(root, 'assets', 'index-abc.js'));
    expect(resolveInside(root, '/../secret.txt')).toBeNull();
    expect(resolveInside(root, '/..%2f..%2fsecret.txt')).toBeNull();
    expect(resolveInside(root, `/${encodeURIComponent(path.join(base, 'secret.txt'))}`)).not.toBe(path.join(base, 'secret.txt'));
  });

  it('answers only for app://renderer, never another host or scheme', async () => {
    expect((await get('app://other/index.html')).status).toBe(403);
    expect(isRendererUrl('app://renderer/index.html')).toBe(true);
    expect(isRendererUrl('app://renderer.evil.test/index.html')).toBe(false);
    expect(isRendererUrl('app://user:pw@renderer/index.html')).toBe(false);
    expect(isRendererUrl('https://renderer/index.html')).toBe(false);
    expect(isRendererUrl('file:///app/dist/renderer/index.html')).toBe(false);
    expect(isRendererUrl('not a url')).toBe(false);
  });

  it("sends a CSP the evaluator finds nothing in but the reviewed script-src 'self'", () => {
    // The same evaluator, and the same single accepted remark, as scripts/electronegativity.mjs
    // (which scans the page's meta CSP; this is the header main sends).
    const fromScanner = createRequire(createRequire(import.meta.url).resolve('@doyensec/electronegativity'));
    const csp = fromScanner('@doyensec/csp-evaluator') as {
      CspParser: new (policy: string) => { csp: unknown };
      CspEvaluator: new (parsed: unknown, version: unknown) => { evaluate(): Array<{ directive: string; value?: string }> };
      Version: { CSP3: unknown };
    };
    const findings = new csp.CspEvaluator(new csp.CspParser(RENDERER_CSP).csp, csp.Version.CSP3).evaluate();
    expect(findings.map((f) => `${f.directive} ${f.value ?? ''}`.trim())).toEqual(["script-src 'self'"]);
  });

  it('registers app: as a standard, secure scheme', () => {
    const protocol = new FakeProtocol([]);
    registerAppScheme(protocol);
    expect(protocol.privileged).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
  });
});
