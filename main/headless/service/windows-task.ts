import path from 'node:path';
import { envFileFlag } from './env-file';
import type { ServiceSpec } from './service-spec';

export function windowsTaskName(name: string): string {
  return `Runner Tray\\${name}`;
}

export function windowsLogPath(home: string, env: Record<string, string | undefined>, name: string): string {
  return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'Runner Tray', 'logs', `${name}.log`);
}

export function windowsTaskXmlPath(home: string, env: Record<string, string | undefined>, name: string): string {
  return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'Runner Tray', `${name}.task.xml`);
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** One word for cmd.exe: quoted, with `"` doubled and `%` escaped so variables are not expanded. */
export function cmdQuote(word: string): string {
  return `"${word.replace(/"/g, '""').replace(/%/g, '%%')}"`;
}

/**
 * The Windows equivalent of a user service: a Task Scheduler task that starts at logon
 * (as this user, only while logged on: no stored password), restarts on failure every
 * minute, has no run-time limit, and appends its output to a log file through cmd.exe
 * (Task Scheduler keeps none). The environment is set on the command line, as tasks have
 * no environment block; the secret-named ones are not (node loads them from `secretsFile`).
 * `stop` ends the task without a drain: running turns are reported failed at the next start
 * ("runner restarted").
 */
export function windowsTaskXml(
  spec: ServiceSpec,
  home: string,
  env: Record<string, string | undefined>,
  userName: string,
  secretsFile: string | null = null,
): string {
  const log = windowsLogPath(home, env, spec.name);
  const sets = Object.entries(spec.env).map(([k, v]) => `set ${cmdQuote(`${k}=${v}`)}`);
  const node = secretsFile ? [spec.entry.command, envFileFlag(secretsFile)] : [spec.entry.command];
  const run = [...node, ...spec.entry.args, ...spec.hostArgs].map(cmdQuote).join(' ');
  const line = `/d /s /c "${[...sets, `${run} >> ${cmdQuote(log)} 2>&1`].join(' && ')}"`;
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    '  <RegistrationInfo>',
    `    <Description>Runner Tray headless runner (${xml(spec.name)}). Written by runner-tray-headless service install.</Description>`,
    '  </RegistrationInfo>',
    '  <Triggers>',
    '    <LogonTrigger>',
    '      <Enabled>true</Enabled>',
    `      <UserId>${xml(userName)}</UserId>`,
    '    </LogonTrigger>',
    '  </Triggers>',
    '  <Principals>',
    '    <Principal id="Author">',
    `      <UserId>${xml(userName)}</UserId>`,
    '      <LogonType>InteractiveToken</LogonType>',
    '      <RunLevel>LeastPrivilege</RunLevel>',
    '    </Principal>',
    '  </Principals>',
    '  <Settings>',
    '    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>',
    '    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>',
    '    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>',
    '    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>',
    '    <RestartOnFailure>',
    '      <Interval>PT1M</Interval>',
    '      <Count>999</Count>',
    '    </RestartOnFailure>',
    '    <StartWhenAvailable>true</StartWhenAvailable>',
    '    <Enabled>true</Enabled>',
    '  </Settings>',
    '  <Actions Context="Author">',
    '    <Exec>',
    '      <Command>cmd.exe</Command>',
    `      <Arguments>${xml(line)}</Arguments>`,
    `      <WorkingDirectory>${xml(spec.entry.workingDirectory)}</WorkingDirectory>`,
    '    </Exec>',
    '  </Actions>',
    '</Task>',
    '',
  ].join('\n');
}
