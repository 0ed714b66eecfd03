export * from './runner-state-file';
export * from './import-runner-state';
