// pino-roll ships no types; this is the part of its API the logger uses.
declare module 'pino-roll' {
  import type { EventEmitter } from 'node:events';

  export interface RollingStream extends EventEmitter {
    readonly file: string;
    readonly destroyed: boolean;
    write(data: string): boolean;
    flush(cb?: (err?: Error | null) => void): void;
    end(): void;
  }

  export interface PinoRollOptions {
    file: string;
    size?: string | number;
    frequency?: 'daily' | 'hourly' | number;
    extension?: string;
    dateFormat?: string;
    limit?: { count: number; removeOtherLogFiles?: boolean };
    mkdir?: boolean;
    mode?: number;
    sync?: boolean;
    minLength?: number;
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<RollingStream>;
}
