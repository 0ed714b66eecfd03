import { slugOf, type ProfileSummary } from '../../../../shared/profiles';
import type { SechroomConfigureInput, SechroomFleetImportInput, SechroomSettingsView } from '../../../../shared/sechroom-profile-contract';
import { FleetConfigError, readFleetConfig } from './fleet-config';
import { CommandFailure, type Caller } from '../../base/dispatch';
import type { WideningGate } from '../../settings/widening';
import { checkSechroomConfig, type SechroomProfileConfig } from './sechroom-config';
import { SechroomSession } from './sechroom-session';
import type { SessionRegistry } from '../../sessions/session-registry';

/** `sechroom:get`, `sechroom:configure` and `sechroom:fleet-import`: a Sechroom profile's settings, checked with the seed's messages. */
export function createSechroomProfileHandlers(profiles: SessionRegistry, widening: WideningGate) {
  const sechroomSession = (id: string): SechroomSession => {
    const session = profiles.get(id);
    if (!(session instanceof SechroomSession)) throw new CommandFailure('wrong_connector', `Profile "${id}" is not a Sechroom profile.`, 'profile');
    return session;
  };
  const checked = (input: unknown): SechroomProfileConfig => {
    const result = checkSechroomConfig(input);
    if (!result.ok) throw new CommandFailure('invalid_input', result.message, result.field || undefined);
    return result.config;
  };
  return {
    'sechroom:get': ({ profile }: { profile: string }): SechroomSettingsView => sechroomSession(profile).settingsView(),
    'sechroom:configure': async ({ profile, confirmWidening, ...input }: SechroomConfigureInput, caller: Caller): Promise<ProfileSummary> => {
      const session = sechroomSession(profile);
      const config = checked(input);
      widening.admit(fullAccessTurnedOn(session, config) ? ['sandbox'] : [], caller, confirmWidening, profile);
      await session.configure(config);
      return session.summary();
    },
    'sechroom:fleet-import': async ({ file, confirmWidening, ...workLayer }: SechroomFleetImportInput, caller: Caller): Promise<ProfileSummary[]> => {
      let instances;
      try {
        instances = await readFleetConfig(file);
      } catch (error) {
        if (error instanceof FleetConfigError) throw new CommandFailure('invalid_input', error.message, 'file');
        throw error;
      }
      // Every entry is checked before any profile changes: a bad fleet config imports nothing.
      const configs = instances.map(({ settings }) => ({ id: slugOf(settings.instanceKey), config: checked({ ...workLayer, instance: settings }) }));
      const widens = configs.some(({ id, config }) => {
        const session = profiles.list().some((p) => p.id === id) ? profiles.get(id) : null;
        return session instanceof SechroomSession ? fullAccessTurnedOn(session, config) : config.instance.sandbox === 'danger-full-access';
      });
      widening.admit(widens ? ['sandbox'] : [], caller, confirmWidening, 'fleet import');
      const out: ProfileSummary[] = [];
      for (const { id, config } of configs) {
        if (!id) throw new CommandFailure('invalid_input', `fleet instance '${config.instance.instanceKey}' has no letters or digits for a profile id`, 'file');
        if (!profiles.list().some((p) => p.id === id)) await profiles.add({ id, name: config.instance.instanceKey, connector: 'sechroom' });
        const session = sechroomSession(id);
        await session.configure(config);
        out.push(session.summary());
      }
      return out;
    },
  };
}

/** codex's `danger-full-access` (no codex sandbox at all) is turned on by this change. */
function fullAccessTurnedOn(session: SechroomSession, config: SechroomProfileConfig): boolean {
  return config.instance.sandbox === 'danger-full-access' && session.settingsView().config?.instance.sandbox !== 'danger-full-access';
}
