import type { Core } from '../core/bootstrap';

type Out = { write(text: string): unknown };

/**
 * A server has nobody at a window: every unpaired Rost profile starts pairing at once, and
 * its code and address show on the terminal (named by the profile while there are several).
 * The profile the flags name pairs too whatever its plane (a Sechroom one signs in to its
 * Work Layer), with `--user-code` when one was handed over; a Sechroom profile beside it is
 * signed in by its token or in the window.
 */
export async function pairAtStart(core: Core, userCode: string | null, out: Out): Promise<void> {
  const main = core.runner.profile.id;
  const list = core.profiles.list();
  const named = (name: string) => (list.length > 1 ? `[${name}] ` : '');
  for (const profile of list) {
    const isMain = profile.id === main;
    if (!isMain && profile.connector !== 'rost') continue;
    const identity = core.profiles.get(profile.id).identity;
    if (identity) {
      if (isMain && userCode) out.write(`${named(profile.name)}Already paired as runner ${identity.runnerId}: --user-code is not used.\n`);
      continue;
    }
    const started =
      isMain && userCode
        ? await core.host.invoke('pairing:start-with-code', { code: userCode, profile: profile.id })
        : await core.host.invoke('pairing:start', { profile: profile.id });
    if (!started.ok) out.write(`${named(profile.name)}Cannot pair yet: ${started.error.message}\n`);
  }
}
