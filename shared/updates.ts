import { z } from 'zod';

/** A newer Runner Tray is out: its version and the line the tray, the window and the terminal show. */
export const UpdateNoticeSchema = z.object({ version: z.string().max(100), line: z.string().max(300) });
export type UpdateNotice = z.infer<typeof UpdateNoticeSchema>;
