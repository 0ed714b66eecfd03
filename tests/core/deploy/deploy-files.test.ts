import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUILT_ENTRY, headlessEntry } from '../../../main/headless/entry-point';
import { stopTimeoutSeconds } from '../../../main/headless/service/service-spec';
import { HOST_MALLOC_ENV } from '../../../main/headless/malloc-env';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => readFileSync(`${root}${file}`, 'utf8');
// js-yaml comes with the dev tools (no types); it is read only here.
const yaml = createRequire(import.meta.url)('js-yaml') as { loadAll(text: string): unknown[] };
const pkg = JSON.parse(read('package.json')) as {
  version: string;
  bin: Record<string, string>;
  engines: { npm: string };
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The Dockerfile's instructions, continuation lines joined, comments left out. */
function instructions(): Array<{ op: string; args: string }> {
  const joined = read('deploy/Dockerfile').replace(/\\\n\s*/g, ' ');
  const instructions = joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
  return instructions;
}
/** The instructions of its last stage (the image that runs). */
function runtimeStage(): Array<{ op: string; args: string }> {
  const all = instructions();
  return all.slice(all.map((i) => i.op).lastIndexOf('FROM'));
}
const env = () => {
  const out: Record<string, string> = {};
  for (const i of runtimeStage().filter((x) => x.op === 'ENV')) for (const m of i.args.matchAll(/(\w+)=(\S+)/g)) out[m[1]!] = m[2]!;
  return out;
};

interface Container {
  image: string;
  args?: string[];
  env: Array<{ name: string; value?: string }>;
  ports: Array<{ name: string; containerPort: number }>;
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  volumeMounts: Array<{ name: string; mountPath: string }>;
}
function manifests(): Array<Record<string, any>> {
  return yaml.loadAll(read('deploy/k8s/statefulset.yaml')) as Array<Record<string, any>>;
}

describe('deploy/Dockerfile', () => {
  it('runs as a non-root user with the data folder as a volume and the file store allowed', () => {
    const stage = runtimeStage();
    const user = stage.filter((i) => i.op === 'USER').at(-1)?.args;
    expect(user).toBe('runner');
    expect(stage.some((i) => i.op === 'RUN' && i.args.includes('useradd --system --uid 10001'))).toBe(true);
    expect(stage.find((i) => i.op === 'VOLUME')?.args).toBe('["/data"]');
    expect(env()).toMatchObject({ RUNNER_TRAY_DATA_DIR: '/data', RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1', HOME: '/data/home' });
  });

  it('starts the host with the allocator settings the service units give it', () => {
    expect(env()).toMatchObject(HOST_MALLOC_ENV);
  });

  it('installs claude and codex from npm at the versions the project tests with', () => {
    const install = runtimeStage().find((i) => i.op === 'RUN' && i.args.includes('@openai/codex'))!.args;
    expect(install).toContain(`@anthropic-ai/claude-code@${pkg.devDependencies['@anthropic-ai/claude-code']}`);
    expect(install).toContain(`@openai/codex@${pkg.devDependencies['@openai/codex']}`);
  });

  it("starts the package's command, linked to the same bundle the service units start, and the npm script it builds with exists", () => {
    const entrypoint = JSON.parse(runtimeStage().find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
    expect(entrypoint).toEqual(['tini', '--', 'runner-tray-headless']);
    const entry = headlessEntry('/app', 'node');
    expect(pkg.bin['runner-tray-headless']).toBe(BUILT_ENTRY);
    expect(runtimeStage().find((i) => i.op === 'RUN' && i.args.startsWith('ln -s'))?.args).toBe(`ln -s ${entry.args[0]} /usr/local/bin/runner-tray-headless`);
    expect(read('deploy/Dockerfile')).toContain('RUN npm run build:renderer && npm run build:headless');
    expect(pkg.scripts['build:renderer']).toBeDefined();
    expect(pkg.scripts['build:headless']).toBeDefined();
  });

  it('is multi-stage: the final stage copies only the bundle, the page and package.json from the build, no node_modules', () => {
    const froms = instructions().filter((i) => i.op === 'FROM');
    expect(froms.map((f) => f.args)).toEqual(['node:20-bookworm-slim AS build', 'node:20-bookworm-slim AS runtime']);
    const copies = runtimeStage().filter((i) => i.op === 'COPY');
    expect(copies.map((c) => c.args.split(/\s+/).filter((w) => !w.startsWith('--')))).toEqual([
      ['/app/package.json', '/app/package.json'],
      ['/app/dist/headless', '/app/dist/headless'],
      ['/app/dist/renderer', '/app/dist/renderer'],
    ]);
    expect(copies.every((c) => c.args.includes('--from=build'))).toBe(true);
    expect(runtimeStage().some((i) => /node_modules|npm ci/.test(i.args) && i.op !== 'RUN')).toBe(false);
    expect(runtimeStage().some((i) => i.op === 'RUN' && /npm ci|npm run/.test(i.args))).toBe(false);
  });

  it('has the npm the engines ask for in both stages, and bubblewrap where turns run', () => {
    const wanted = Number(/>=\s*(\d+)/.exec(pkg.engines.npm)![1]);
    for (const stage of [
      instructions().slice(
        0,
        instructions()
          .map((i) => i.op)
          .lastIndexOf('FROM'),
      ),
      runtimeStage(),
    ]) {
      const npm = stage.find((i) => i.op === 'RUN' && /npm install -g .*npm@(\d+)/.test(i.args))!.args;
      expect(Number(/npm@(\d+)/.exec(npm)![1])).toBeGreaterThanOrEqual(wanted);
    }
    expect(runtimeStage().find((i) => i.op === 'RUN' && i.args.includes('apt-get install'))!.args).toMatch(/\bbubblewrap\b/);
  });

  it("gives docker run's stop the drain limit plus the time to report, and says what bubblewrap needs", () => {
    const text = read('deploy/Dockerfile');
    const stop = Number(/--stop-timeout (\d+)/.exec(text)![1]);
    expect(stop).toBeGreaterThanOrEqual(stopTimeoutSeconds(Number(env().RUNNER_TRAY_QUIT_DRAIN_MS)));
    expect(text).toContain('--security-opt seccomp=unconfined');
    expect(text).toContain('cannot create a sandbox here');
    expect(read('README.md')).toContain('--stop-timeout 330');
    expect(read('README.md')).toMatch(/ANTHROPIC_API_KEY[\s\S]{0,200}OPENAI_API_KEY/);
  });

  it('.dockerignore keeps data folders, .tmp and anything that can hold a secret out of the build', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const entry of [
      '.tmp',
      'node_modules',
      'dist',
      '.git',
      '*.secret',
      '.env',
      '.env.*',
      '**/secrets',
      '**/runner-state.json',
      '**/address.env',
      'data',
    ]) {
      expect(ignored).toContain(entry);
    }
  });

  it('exposes the probe port it configures', () => {
    expect(runtimeStage().find((i) => i.op === 'EXPOSE')?.args).toBe(env().RUNNER_TRAY_HEALTH_PORT);
  });
});

describe('deploy/k8s/statefulset.yaml', () => {
  it('parses, and is a StatefulSet with a volume per replica and no Secret anywhere', () => {
    const docs = manifests();
    expect(docs.map((d) => d.kind)).toEqual(['Service', 'StatefulSet']);
    const text = read('deploy/k8s/statefulset.yaml');
    expect(text).not.toMatch(/kind:\s*Secret|secretKeyRef|secretRef/);
    const set = docs[1]!;
    expect(set.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    const c = set.spec.template.spec.containers[0] as Container;
    expect(c.volumeMounts).toContainEqual({ name: 'data', mountPath: env().RUNNER_TRAY_DATA_DIR });
    expect(set.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 });
  });

  it("references the Dockerfile's image, port and probe path", () => {
    const docs = manifests();
    const c = docs[1]!.spec.template.spec.containers[0] as Container;
    expect(read('deploy/Dockerfile')).toContain(`-t ${c.image} `);
    expect(c.image).toBe(`runner-tray-headless:${pkg.version}`);
    const port = Number(env().RUNNER_TRAY_HEALTH_PORT);
    expect(c.ports).toEqual([{ name: 'health', containerPort: port }]);
    expect(c.env).toContainEqual({ name: 'RUNNER_TRAY_HEALTH_PORT', value: String(port) });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'health' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/healthz?ready=1', port: 'health' });
    expect(docs[0]!.spec.ports[0]).toMatchObject({ targetPort: 'health', port });
  });

  it('gives a stopping pod the drain limit plus the time to report', () => {
    const spec = manifests()[1]!.spec.template.spec;
    const drain = Number((spec.containers[0] as Container).env.find((e) => e.name === 'RUNNER_TRAY_QUIT_DRAIN_MS')!.value);
    expect(spec.terminationGracePeriodSeconds).toBe(stopTimeoutSeconds(drain));
  });
});
