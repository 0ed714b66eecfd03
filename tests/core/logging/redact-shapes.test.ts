import { describe, expect, it } from 'vitest';
import { TailBuffer } from '../../../main/core/exec/output-capture';
import { REDACTED, redactText } from '../../../shared/redact';

// Test-only values: obviously fake, and assertions compare booleans so a failure never prints them.
const FAKE = {
  googleOauth: 'ya29.' + 'a0AfB_byC1d2E3f4G5h6I7j8K9l0'.repeat(2),
  huggingFace: 'hf_' + 'AbCdEfGhIjKlMnOpQrStUvWxYz01234567',
  sendgrid: 'SG.' + 'aBcDeFgHiJkLmNoPqRsTuV' + '.' + 'wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ012',
  webhookSecret: 'whsec_' + 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  webhookSecretBase64: 'whsec_' + 'C2FtcGxl+c2VjcmV0/dmFsdWU9PQ==',
};

function hides(text: string, secret: string, known?: readonly string[]): boolean {
  const out = redactText(text, known);
  return !out.includes(secret) && out.includes(REDACTED);
}

describe('redaction of the shapes a prompt-injected turn was seen to leak', () => {
  it.each(Object.entries(FAKE))('hides a %s anywhere in text', (_name, secret) => {
    expect(hides(`here: ${secret} and more`, secret)).toBe(true);
    expect(hides(JSON.stringify({ note: `see ${secret}` }), secret)).toBe(true);
  });

  it('keeps look-alikes that are ordinary words (hf_ and SG. and ya29. with too little after them)', () => {
    expect(redactText('hf_hub and SG.Name and ya29.short')).toBe('hf_hub and SG.Name and ya29.short');
  });

  it('hides a Slack webhook URL’s secret path, keeping the host', () => {
    const url = 'https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/AbCdEfGhIjKlMnOpQrStUvWx';
    const out = redactText(`posting to ${url} now`);
    expect(out.includes('AbCdEfGhIjKlMnOpQrStUvWx')).toBe(false);
    expect(out.includes('B0HIJKLMN')).toBe(false);
    expect(out).toContain(`https://hooks.slack.com/services/${REDACTED}`);
  });

  it('hides an Azure SAS signature in a URL and in a bare SAS token, keeping the rest of the query', () => {
    const sig = 'Xk9%2BtRz1Qw3e%2Fr5T7y9U1i3O5p7A9s1D3f5G7h9J%3D';
    const url = `https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&spr=https&sig=${sig}`;
    const out = redactText(url);
    expect(out.includes(sig)).toBe(false);
    expect(out).toContain('sv=2022-11-02&ss=b');
    expect(hides(`SharedAccessSignature=sv=2022-11-02&sr=c&sig=${sig}`, sig)).toBe(true);
  });

  it('hides a YAML block value under a secret-named key, line by line, and stops at the next key', () => {
    const yaml = [
      'service:',
      '  password: |',
      '    hunter2-line-one',
      '    hunter2-line-two',
      '',
      '  user: alice',
      'private_key: >-',
      '  MIIEvQIBADANBgkq',
      'next: 1',
    ].join('\n');
    const out = redactText(yaml);
    for (const part of ['hunter2-line-one', 'hunter2-line-two', 'MIIEvQIBADANBgkq']) expect(out.includes(part)).toBe(false);
    expect(out).toContain('  user: alice');
    expect(out).toContain('next: 1');
    expect(out.split('\n')).toHaveLength(9);
  });

  it('keeps a YAML block under an ordinary key', () => {
    const yaml = 'description: |\n  a long text\n  over two lines\n';
    expect(redactText(yaml)).toBe(yaml);
  });

  it('hides a known secret split over two lines, each half where it stands', () => {
    const known = 'rsec_known-Secret-0123456789abcdef';
    const text = `first half: ${known.slice(0, 15)}\n${known.slice(15)} was the rest`;
    const out = redactText(text, [known]);
    expect(out.includes(known.slice(0, 15))).toBe(false);
    expect(out.includes(known.slice(15))).toBe(false);
    expect(out).toBe(`first half: ${REDACTED}\n${REDACTED} was the rest`);
  });

  it('hides a token shape whose tail wrapped onto the next line', () => {
    const token = FAKE.googleOauth;
    const out = redactText(`printed: ${token.slice(0, 30)}\r\n${token.slice(30)}\nnext line`);
    expect(out.includes(token.slice(30))).toBe(false);
    expect(out).toContain('next line');
  });

  it('hides a known secret that a stream delivered in two chunks (the tail is redacted whole)', () => {
    const known = 'turn-secret-value-0123456789';
    const tail = new TailBuffer(4096);
    tail.push(Buffer.from(`leaked: ${known.slice(0, 10)}`));
    tail.push(Buffer.from(`${known.slice(10)} done\n`));
    const out = tail.render([known]);
    expect(out.includes(known.slice(10))).toBe(false);
    expect(out).toContain(`leaked: ${REDACTED} done`);
  });

  it('finishes on 1 MB adversarial inputs for the new passes', () => {
    const inputs = [
      'password: |\n' + ' x\n'.repeat(300_000),
      'a: |\n'.repeat(200_000),
      '&sig='.repeat(200_000),
      'ya29.'.repeat(200_000),
      'x\n'.repeat(500_000),
    ];
    for (const input of inputs) expect(typeof redactText(input, ['split-known-secret'])).toBe('string');
  });
});
