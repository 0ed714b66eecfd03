/**
 * Device user codes: 8 characters from a base-20 alphabet without vowels or
 * look-alikes (so no words and no 0/O, 1/I confusion), shown as `XXXX-XXXX`.
 * Typed codes are accepted case- and dash-insensitively. [v1, RFC 8628 §6.1]
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** Canonical form (8 uppercase characters, no separator) or null when the input cannot be a code. */
export function normalizeUserCode(input: string): string | null {
  const compact = input.replace(/[\s-]/g, '').toUpperCase();
  if (compact.length !== USER_CODE_LENGTH) return null;
  for (const ch of compact) {
    if (!USER_CODE_ALPHABET.includes(ch)) return null;
  }
  return compact;
}

/** Display form `XXXX-XXXX` of a canonical code. */
export function formatUserCode(canonical: string): string {
  return `${canonical.slice(0, 4)}-${canonical.slice(4)}`;
}
