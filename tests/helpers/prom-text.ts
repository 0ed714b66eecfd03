/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests: every line
 * must be a HELP, a TYPE or a sample of a declared family, with valid names, quoted and
 * escaped label values and a number; anything else throws, naming the line.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, readonly string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

/** Go's ParseFloat, as the format says: its special values in any case (prom-client writes `Nan`). */
function parseValue(text: string, where: string): number {
  const special = /^([-+]?)(inf|infinity)$/i.exec(text);
  if (special) return special[1] === '-' ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: "${text}" is not a number`);
  return Number(text);
}

function parseLabels(text: string, where: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1;
  while (text[i] !== '}') {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`${where}: a label without =`);
    const name = text.slice(i, eq);
    if (!LABEL.test(name)) throw new Error(`${where}: bad label name "${name}"`);
    if (text[eq + 1] !== '"') throw new Error(`${where}: label ${name} is not quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`${where}: bad escape \\${next ?? ''}`);
      } else value += text[j];
    }
    if (j >= text.length) throw new Error(`${where}: unterminated label value`);
    if (name in labels) throw new Error(`${where}: label ${name} twice`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`${where}: expected , or } after label ${name}`);
  }
  return { labels, rest: text.slice(i + 1) };
}

export function parsePromText(body: string): { samples: Sample[]; types: Map<string, string> } {
  if (!body.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [n, line] of body.slice(0, -1).split('\n').entries()) {
    const where = `line ${n + 1}`;
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) continue;
      if (!NAME.test(m[2]!)) throw new Error(`${where}: bad metric name ${m[2]}`);
      if (m[1] === 'TYPE') {
        if (!TYPES.has(m[3]!)) throw new Error(`${where}: unknown type ${m[3]}`);
        if (types.has(m[2]!)) throw new Error(`${where}: ${m[2]} typed twice`);
        types.set(m[2]!, m[3]!);
      }
      continue;
    }
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) throw new Error(`${where}: not a sample`);
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`${where}: bad metric name ${name}`);
    const { labels, rest } = line[nameEnd] === '{' ? parseLabels(line.slice(nameEnd), where) : { labels: {}, rest: line.slice(nameEnd) };
    const parts = rest.trim().split(' ');
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) throw new Error(`${where}: expected " value [timestamp]"`);
    const family = [...types.keys()].find((f) => f === name || (SUFFIXES[types.get(f)!] ?? []).some((s) => `${f}${s}` === name));
    if (family === undefined) throw new Error(`${where}: ${name} has no TYPE line before it`);
    if (types.get(family) === 'histogram' && name.endsWith('_bucket') && !('le' in labels)) throw new Error(`${where}: a bucket without le`);
    samples.push({ name, labels, value: parseValue(parts[0]!, where) });
  }
  return { samples, types };
}

/** The value of the one sample with this name whose labels include `labels` (undefined: none). */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
