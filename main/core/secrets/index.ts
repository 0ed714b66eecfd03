export * from './secret-store';
export * from './keychain-secret-store';
export * from './file-secret-store';
export * from './open-secret-store';
