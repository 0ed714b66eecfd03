/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Known secrets shorter than this are ignored: replacing them would shred ordinary text. */
export const MIN_KNOWN_SECRET_LENGTH = 6;
