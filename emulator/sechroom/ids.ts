import { randomBytes } from 'node:crypto';

/** Readable, prefixed ids in the seed's style (`mem_…`, `wlp_…`); 12 hex digits of randomness. */
export const newSechroomId = (prefix: 'mem' | 'wlp' | 'gen' | 'lse' | 'exi' | 'wks'): string => `${prefix}_${randomBytes(6).toString('hex')}`;
