import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactText } from '../../../shared/redact';

const bearer = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;

describe('redaction of the control plane’s own secrets', () => {
  it('knows every token shape the emulator issues', () => {
    for (const prefix of ['rsec', 'mcp', 'oat', 'ort', 'odc', 'ses', 'csrf']) {
      // Force an upper-case letter so the rare all-lower-case draw does not make this flaky.
      const token = `${bearer(prefix)}Q`;
      expect(redactText(`got ${token} back`), prefix).toBe(`got ${REDACTED} back`);
    }
  });

  it('leaves tool names and identifiers with those prefixes alone', () => {
    const text = 'allowed mcp__rost__report_progress_and_a_long_tool_name and mcp_servers.rost.default_tools_approval_mode';
    expect(redactText(text)).toBe(text);
  });

  it('finds a known secret URL-encoded, form-encoded, encoded twice, and base64 at any alignment, split or not', () => {
    const secret = 'rsec_Ab+c/d e?f&g=h~0123456789';
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const b64url = (s: string) => Buffer.from(s).toString('base64url');
    const leaks = [
      `q=${encodeURIComponent(secret)}`,
      `q=${encodeURIComponent(secret).replace(/%20/g, '+')}`,
      `u=${encodeURIComponent(encodeURIComponent(secret))}`,
      `b=${b64(secret)}`,
      `b=${b64(`x${secret}`)}`,
      `b=${b64(`xy${secret}yx`)}`,
      `b=${b64url(`{"s":"${secret}"}`)}`,
      `h=${Buffer.from(secret).toString('hex')}`,
      `h=0x${Buffer.from(secret).toString('hex').toUpperCase()}`,
    ];
    for (const leak of leaks) {
      const out = redactText(leak, [secret]);
      expect(out, leak).toContain(REDACTED);
      // Nothing long enough to rebuild the secret is left.
      for (const enc of [b64(secret).slice(0, 16), encodeURIComponent(secret).slice(0, 16)]) expect(out).not.toContain(enc);
    }
    // Ordinary base64 of other text is untouched.
    const other = `b=${b64('nothing secret in here at all')}`;
    expect(redactText(other, [secret])).toBe(other);
  });
});
