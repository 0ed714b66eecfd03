import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretKey, redactText, redactValue } from '../../../shared/redact';

// Test-only values: obviously fake, and assertions compare booleans so a failure never prints them.
const FAKE = {
  anthropic: 'sk-ant-api03-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(3),
  openai: 'sk-proj-' + 'Zy9Xw8Vu7Ts6Rq5Po4Nm3'.repeat(2),
  github: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  githubPat: 'github_pat_11ABCDEFG0123456789_' + 'x'.repeat(40),
  slack: 'xoxb-1234567890-0987654321-AbCdEfGhIjKl',
  aws: 'AKIAIOSFODNN7EXAMPL3',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
};

function hides(text: string, secret: string, known?: readonly string[]): boolean {
  const out = redactText(text, known);
  return !out.includes(secret) && out.includes(REDACTED);
}

describe('redactText', () => {
  it.each(Object.entries(FAKE))('hides a %s key shape anywhere in text', (_name, secret) => {
    expect(hides(`token in prose: ${secret} and more`, secret)).toBe(true);
    expect(hides(JSON.stringify({ note: `see ${secret}` }), secret)).toBe(true);
  });

  it('hides known secrets verbatim, JSON-escaped and URL-encoded', () => {
    const known = 'runner-s3cr3t/with"quote&amp';
    expect(hides(`value=${known}.`, known, [known])).toBe(true);
    const json = JSON.stringify({ m: `x ${known} y` });
    const out = redactText(json, [known]);
    expect(out.includes('s3cr3t')).toBe(false);
    expect(() => JSON.parse(out)).not.toThrow();
    expect(redactText(`?q=${encodeURIComponent(known)}`, [known]).includes('s3cr3t')).toBe(false);
  });

  it('ignores known secrets too short to be secrets', () => {
    expect(redactText('a b c abc', ['abc'])).toBe('a b c abc');
  });

  it('hides bearer tokens and Authorization/Cookie header values', () => {
    expect(redactText('Authorization: Bearer abc.def-ghi')).toBe(`Authorization: ${REDACTED}`);
    expect(redactText('authorization=Basic dXNlcjpwYXNz\nnext line')).toBe(`authorization=${REDACTED}\nnext line`);
    expect(redactText('curl -H "Authorization: token abc123" x')).toBe(`curl -H "Authorization: ${REDACTED}" x`);
    expect(redactText('sent Bearer abcdefgh12345678 to it')).toBe(`sent Bearer ${REDACTED} to it`);
    expect(redactText('Cookie: session=abc; theme=dark')).toBe(`Cookie: ${REDACTED}`);
  });

  it('hides values of secret-named keys in JSON, env, YAML and query syntax', () => {
    expect(redactText('{"runner_secret":"abc","name":"box"}')).toBe(`{"runner_secret":"${REDACTED}","name":"box"}`);
    expect(redactText('{"access_token": "a", "refresh_token": "b"}')).toBe(`{"access_token": "${REDACTED}", "refresh_token": "${REDACTED}"}`);
    expect(redactText('RUNNER_SECRET=abc123 next')).toBe(`RUNNER_SECRET=${REDACTED} next`);
    expect(redactText('password: hunter2')).toBe(`password: ${REDACTED}`);
    expect(redactText('https://x/cb?api_key=abc&page=2')).toBe(`https://x/cb?api_key=${REDACTED}&page=2`);
    expect(redactText("{'secret': 'x', 'token': 'y'}")).toBe(`{'secret': '${REDACTED}', 'token': '${REDACTED}'}`);
    expect(redactText('{"mcp":{"url":"/mcp","token":"t0k"}}')).toBe(`{"mcp":{"url":"/mcp","token":"${REDACTED}"}}`);
  });

  it('keeps look-alike keys that hold no secret', () => {
    const text = '{"input_tokens":12,"max_tokens":5,"token_type":"bearer","secretBackend":"file","active_secret_grant_count":2,"user_code":"ABCD-EFGH"}';
    expect(redactText(text)).toBe(text);
  });

  it('redacts weak keys (key, sig, code) only when the value looks like a token', () => {
    expect(redactText('key=short')).toBe('key=short');
    expect(redactText(`key=${'ab12'.repeat(10)}`)).toBe(`key=${REDACTED}`);
    expect(redactText('commit 0123456789abcdef0123456789abcdef01234567')).toContain('0123456789abcdef');
  });

  it('hides passwords in URLs and PEM private keys', () => {
    expect(redactText('git clone https://bob:pa55w0rd@example.com/r.git')).toBe(`git clone https://bob:${REDACTED}@example.com/r.git`);
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----';
    expect(redactText(`key:\n${pem}\nafter`)).toBe(`key:\n${REDACTED}\nafter`);
    expect(redactText('-----BEGIN PRIVATE KEY-----\nMIIE unterminated')).toBe(REDACTED);
  });

  it('keeps a JSON line valid JSON', () => {
    const line = JSON.stringify({
      msg: 'Authorization: Bearer abc\n"quoted" and {"password":"p4ss","ok":1} and ' + FAKE.github,
      data: { err: `-----BEGIN PRIVATE KEY-----\nabc`, token: 'x\\"y' },
    });
    const out = redactText(line);
    expect(() => JSON.parse(out)).not.toThrow();
    expect(out.includes('p4ss') || out.includes(FAKE.github)).toBe(false);
  });

  it('finishes on 1 MB adversarial inputs (no catastrophic backtracking)', () => {
    const M = 1 << 20;
    const inputs = [
      'a'.repeat(M),
      'a='.repeat(M / 2),
      '"a":"'.repeat(M / 5),
      'token="'.repeat(M / 7),
      'Bearer '.repeat(M / 7),
      'eyJ.'.repeat(M / 4),
      'sk-'.repeat(M / 3),
      '\\"'.repeat(M / 2),
      'key=\'key=" '.repeat(M / 11),
      'password' + ' '.repeat(M),
      '-----BEGIN PRIVATE KEY-----'.repeat(M / 27),
      'http://a:'.repeat(M / 9),
      'authorization: '.repeat(M / 15),
      'a.'.repeat(M / 2),
      '0123456789abcdef'.repeat(M / 16),
      'key='.repeat(M / 4),
      `${'key='.repeat(1000)} `.repeat(M / 4001),
      'token=\\"a\\" '.repeat(M / 12),
      'key=\\"'.repeat(M / 6),
      'key="'.repeat(M / 5),
      "sig='".repeat(M / 5),
      'code: '.repeat(M / 6),
    ];
    for (const input of inputs) {
      const out = redactText(input, ['known-secret-value']);
      expect(typeof out).toBe('string');
    }
  });
});

describe('isSecretKey', () => {
  it.each([
    'runner_secret',
    'access_token',
    'refresh_token',
    'token',
    'api_key',
    'apiKey',
    'x-api-key',
    'password',
    'secret',
    'clientSecret',
    'Authorization',
    'DB_PASSWORD',
    'privateKey',
    'auth',
  ])('%s is secret', (key) => expect(isSecretKey(key)).toBe(true));
  it.each(['input_tokens', 'token_type', 'tokenExpiresAt', 'secretBackend', 'secret_grant_count', 'name', 'key', 'session_id', 'tokens'])('%s is not', (key) =>
    expect(isSecretKey(key)).toBe(false),
  );
});

describe('redactValue', () => {
  it('deep-redacts secret-named keys, strings, errors and cycles', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const err = Object.assign(new Error(`failed with ${FAKE.github}`), { code: 'E_X' });
    const out = redactValue({
      runner_secret: 'abc',
      nested: [{ apiKey: 'k', count: 3, ok: true }],
      credentials: { user: 'u', pass: 'p' },
      password: null,
      note: `Bearer abcdefgh12345678`,
      err,
      cyclic,
      when: new Date(0),
      big: 10n,
    }) as Record<string, unknown>;
    expect(out.runner_secret).toBe(REDACTED);
    expect(out.nested).toEqual([{ apiKey: REDACTED, count: 3, ok: true }]);
    expect(out.credentials).toBe(REDACTED);
    expect(out.password).toBeNull();
    expect(out.note).toBe(`Bearer ${REDACTED}`);
    const e = out.err as Record<string, unknown>;
    expect(e.type).toBe('Error');
    expect(e.code).toBe('E_X');
    expect(JSON.stringify(e).includes(FAKE.github)).toBe(false);
    expect((out.cyclic as Record<string, unknown>).self).toBe('[Circular]');
    expect(out.when).toBe('1970-01-01T00:00:00.000Z');
    expect(out.big).toBe('10');
  });

  it('applies known secrets to every string', () => {
    expect(redactValue({ a: ['x my-known-secret y'] }, ['my-known-secret'])).toEqual({ a: [`x ${REDACTED} y`] });
  });
});
