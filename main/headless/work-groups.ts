/** The seed's Work Layer command groups the headless command line takes as its first word (work-commands.ts, loaded only for them). */
export const WORK_GROUPS = ['work-brief', 'work-plan', 'work-task'] as const;
export const WORK_USAGE_LINE = '       runner-tray-headless work-brief|work-plan|work-task … (the seed’s Work Layer commands: work-plan --help)';
