export * from './logger';
export * from './log-ring';
export { listLogFiles } from './log-files';
