export * from './settings-store';
export * from './settings-migrations';
export * from './conf-settings-backend';
export * from './overrides';
