import path from 'node:path';
import { envFileFlag } from './env-file';
import { stopTimeoutSeconds, type ServiceSpec } from './service-spec';

export function launchdLabel(name: string): string {
  return `dev.runnertray.${name}`;
}

export function launchdPlistPath(home: string, name: string): string {
  return path.join(home, 'Library', 'LaunchAgents', `${launchdLabel(name)}.plist`);
}

export function launchdLogPath(home: string, name: string): string {
  return path.join(home, 'Library', 'Logs', 'Runner Tray', `${name}.log`);
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A launchd agent: starts at login, restarted when it exits with an error
 * (`KeepAlive.SuccessfulExit = false`), SIGTERM on stop with the drain limit (plus time to
 * report) before launchd kills it, stdout and stderr in one log file. The secret-named
 * variables are not in it: node loads them from `secretsFile` (0600) when there are any.
 */
export function launchdPlist(spec: ServiceSpec, home: string, secretsFile: string | null = null): string {
  const log = launchdLogPath(home, spec.name);
  const node = secretsFile ? [spec.entry.command, envFileFlag(secretsFile)] : [spec.entry.command];
  const args = [...node, ...spec.entry.args, ...spec.hostArgs].map((a) => `    <string>${xml(a)}</string>`);
  const env = Object.entries(spec.env).map(([k, v]) => `    <key>${xml(k)}</key>\n    <string>${xml(v)}</string>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${xml(launchdLabel(spec.name))}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...args,
    '  </array>',
    '  <key>WorkingDirectory</key>',
    `  <string>${xml(spec.entry.workingDirectory)}</string>`,
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...env,
    '  </dict>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>KeepAlive</key>',
    '  <dict>',
    '    <key>SuccessfulExit</key>',
    '    <false/>',
    '  </dict>',
    '  <key>ThrottleInterval</key>',
    '  <integer>5</integer>',
    '  <key>ExitTimeOut</key>',
    `  <integer>${stopTimeoutSeconds(spec.drainMs)}</integer>`,
    '  <key>StandardOutPath</key>',
    `  <string>${xml(log)}</string>`,
    '  <key>StandardErrorPath</key>',
    `  <string>${xml(log)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
