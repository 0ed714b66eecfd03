import type { z } from 'zod';
import { HttpError, describeZodError } from '../http/reply';

/** Parses a request body (or query) with zod; a failure is a 400 naming the field. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, root = 'body', prefix = ''): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, 'invalid_request', describeZodError(result.error, root, prefix));
  return result.data;
}
