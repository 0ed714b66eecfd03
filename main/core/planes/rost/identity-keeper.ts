import { errorText } from '../../../../shared/errors';
import { normalizeUserCode, type PairingClaimResponse, type PairingStartRequest } from '../../../../shared/protocol';
import type { PairingState, RunnerSnapshot } from '../../../../shared/runner';
import type { RunnerConnector, RunnerCredentials } from './connector';
import { isConnectorError } from '../../connectors/errors';
import { CommandFailure } from '../../base/dispatch';
import type { SecretStore } from '../../secrets/secret-store';
import { PairingFlow, type PairingStart } from './pairing-flow';
import type { RunnerIdentity } from '../../runner/runner-state-store';
import { importStateFile, type StateImportResult } from './state-import';
import { StateTakeover } from './state-takeover';
import type { IdentityKeeperDeps } from './identity-keeper-deps';

export type { IdentityKeeperDeps, RunnerSecretStore } from './identity-keeper-deps';

/**
 * Who a profile is to its control plane: pairing (device code, a pasted code, the signed-in
 * start), taking over a `rost runner serve` state file, the secret in the secret store,
 * unpairing and revocation, and the rename a runner-name setting asks for.
 */
export class IdentityKeeper {
  private credentials: RunnerCredentials | null = null;
  private connector: RunnerConnector | null = null;
  private pairingConnector: RunnerConnector | null = null;
  private readonly pairing: PairingFlow;
  private readonly takeover: StateTakeover;
  private pairingState: PairingState | null = null;
  private revokedFlag = false;
  /** Our own unpair is under way: the 401s it causes (a held claim's, a heartbeat's) are not a revocation. */
  private unpairing = false;
  private nameSetting: string | null = null;

  constructor(private readonly deps: IdentityKeeperDeps) {
    this.pairing = new PairingFlow({
      connector: {
        // The flow talks to whichever control plane pairing was started against.
        startPairing: (r) => this.pairingConnector!.startPairing(r),
        pollPairing: (id) => this.pairingConnector!.pollPairing(id),
        pollPairingByCode: (claim) => this.pairingConnector!.pollPairingByCode(claim),
      } as RunnerConnector,
      clock: deps.clock,
      log: deps.log.child('pairing'),
      onState: (state) => {
        this.pairingState = state;
        deps.onChange();
      },
      onApproved: (credentials) => this.adopt(credentials),
      ...(deps.random ? { random: deps.random } : {}),
    });
    this.takeover = new StateTakeover({
      clock: deps.clock,
      log: deps.log.child('import'),
      ...(deps.random ? { random: deps.random } : {}),
      onState: (state) => {
        this.pairingState = state;
        deps.onChange();
      },
      onImported: (result) => this.imported(result),
    });
  }

  get identity(): RunnerIdentity | null {
    return this.deps.state.get().identity;
  }
  get current(): { connector: RunnerConnector; credentials: RunnerCredentials } | null {
    return this.connector && this.credentials ? { connector: this.connector, credentials: this.credentials } : null;
  }
  get pairingView(): PairingState | null {
    return this.pairingState;
  }
  get revoked(): boolean {
    return this.revokedFlag;
  }
  /** Paired, but the secret is not where it should be. */
  get problem(): string | null {
    return this.identity && !this.credentials ? 'The runner secret is missing from the secret store. Unpair and pair again.' : null;
  }

  /** At start: a stored identity finds its secret and connects. */
  async restore(): Promise<void> {
    this.nameSetting = this.deps.config().runnerName.trim();
    const identity = this.identity;
    if (identity) await this.connect(identity);
  }

  stop(): void {
    this.pairing.cancel();
  }

  /**
   * Pairs this profile. With `userCode` (seed `--user-code`, or "Have a code from the web?")
   * it claims that code; otherwise, when an operator is signed in, it starts as the seed
   * does with the authenticated `runner.pairing.start`, and falls back to the device code.
   */
  async startPairing(options: { userCode?: string } = {}): Promise<PairingState> {
    if (this.identity) throw new CommandFailure('already_paired', 'This profile is already paired. Unpair it first.');
    if (!this.deps.secrets) throw new CommandFailure('no_secret_store', this.deps.secretStorage.problem ?? 'No secure place to keep the runner secret.');
    // A try waiting for its time (the control plane or the secret store did not answer): make it now, keeping the code.
    if (await this.takeover.retryNow()) return this.pairingState ?? { phase: 'approved', runnerName: this.deps.state.get().identity?.name ?? '' };
    if (this.pairing.retryPending && options.userCode === undefined) return this.pairing.retryNow();
    const config = this.deps.config();
    let userCode: string | undefined;
    if (options.userCode !== undefined) {
      // Codes of our shape (XXXX-XXXX) are taken case-, space- and dash-insensitively; a real
      // server's may look different and are sent as typed.
      const ours = normalizeUserCode(options.userCode);
      userCode = ours ? `${ours.slice(0, 4)}-${ours.slice(4)}` : options.userCode.trim();
      if (userCode.length === 0 || userCode.length > 64 || /\s/.test(userCode)) {
        throw new CommandFailure('invalid_code', 'That is not a pairing code: paste the code exactly as the control plane showed it.');
      }
    }
    this.revokedFlag = false;
    this.pairingConnector = this.deps.connectorFor(config.controlPlaneUrl);
    const platform = this.deps.platform.platform;
    const request: PairingStartRequest = {
      name: config.runnerName,
      platform: platform === 'darwin' || platform === 'win32' ? platform : 'linux',
      runner_version: this.deps.appVersion,
      hostname: this.deps.platform.hostname,
    };
    let how: PairingStart = { kind: 'device' };
    if (userCode) how = { kind: 'code', userCode, verificationUri: config.controlPlaneUrl };
    else if (this.deps.operatorPairingStart) {
      try {
        const started = await this.deps.operatorPairingStart({ name: request.name, platform: request.platform });
        if (started) {
          this.deps.log.info('pairing started by the signed-in operator (runner.pairing.start)');
          how = { kind: 'started', started, verificationUri: config.controlPlaneUrl };
        }
      } catch (error) {
        this.deps.log.warn('the signed-in start of pairing failed; using the device-code start', { error: errorText(error) });
      }
    }
    await this.pairing.start(request, how);
    return this.pairing.current;
  }

  cancelPairing(): void {
    this.pairing.cancel();
    this.takeover.cancel();
  }

  /** Takes over the identity of an existing `rost runner serve` state file; a try the secret store did not answer is made again. */
  async importState(file: string): Promise<{ runnerId: string; notes: string[] }> {
    if (this.identity) throw new CommandFailure('already_paired', 'This profile is already paired. Unpair it first.');
    const secrets = this.deps.secrets as SecretStore | null;
    if (!secrets) throw new CommandFailure('no_secret_store', this.deps.secretStorage.problem ?? 'No secure place to keep the runner secret.');
    const config = this.deps.config();
    const options = { secrets, account: (url: string) => this.deps.account(url), ...config, state: this.deps.state };
    const result = await this.takeover.start(() => importStateFile({ ...options, file, now: this.deps.clock.now() }));
    if (!result.ok) {
      if (!result.transient) throw new CommandFailure('import_failed', result.reason);
      throw new CommandFailure('import_retrying', `${result.reason} Trying again by itself; Retry now is in the Pairing view.`);
    }
    await this.imported(result);
    return { runnerId: result.identity.runnerId, notes: result.notes };
  }

  private async imported(result: Extract<StateImportResult, { ok: true }>): Promise<void> {
    this.revokedFlag = false;
    this.deps.log.info('imported a rost runner state file', { runnerId: result.identity.runnerId });
    await this.connect(result.identity);
    this.deps.onChange();
  }

  /** Revoke at the server, then forget locally. `force` forgets even if the server is unreachable. */
  async unpair(force: boolean): Promise<void> {
    const identity = this.identity;
    if (!identity) throw new CommandFailure('not_paired', 'This profile is not paired.');
    this.unpairing = true;
    try {
      if (this.credentials && this.connector) {
        try {
          await this.connector.unpair(this.credentials);
        } catch (error) {
          if (!isConnectorError(error, 'unauthorized') && !force) {
            throw new CommandFailure(
              'unpair_failed',
              `Could not reach the control plane to revoke this runner (${errorText(error)}). Try again, or forget it on this machine only.`,
            );
          }
        }
      }
      await this.forget(identity);
    } finally {
      this.unpairing = false;
    }
    this.deps.log.info('unpaired', { runnerId: identity.runnerId });
    this.deps.onChange();
  }

  /** A 401 from any runner call lands here. */
  async markRevoked(): Promise<void> {
    const identity = this.identity;
    // During our own unpair the server refuses the secret we just gave up (a held claim ends
    // with a 401 at once): that is the unpair going through, and it says "Not paired".
    if (!identity || this.unpairing) return;
    this.deps.log.warn('the control plane revoked this runner; the secret was removed');
    // Called without waiting (from a claim, a heartbeat, a delivery): it must not reject.
    try {
      await this.forget(identity);
    } catch (error) {
      this.deps.log.error('could not remove the revoked secret or state from this machine', { error: errorText(error) });
    }
    this.revokedFlag = true;
    this.deps.onChange();
  }

  /** The runner name setting changed while paired: rename (the next heartbeat carries `name`); true when it did. */
  async renameIfChanged(): Promise<boolean> {
    const name = this.deps.config().runnerName.trim();
    const previous = this.nameSetting;
    this.nameSetting = name;
    const identity = this.identity;
    if (previous === null || previous === name || !identity || !name || identity.name === name) return false;
    this.deps.log.info('renamed the runner; the next heartbeat tells the control plane', { name });
    try {
      await this.deps.state.update((s) => (s.identity ? { ...s, identity: { ...s.identity, name } } : s));
      return true;
    } catch (error) {
      this.deps.log.warn('could not store the new runner name', { error: errorText(error) });
      return false;
    }
  }

  view(): RunnerSnapshot['identity'] {
    if (!this.identity) return null;
    const { controlPlaneUrl, ...identity } = this.identity;
    return { ...identity, tenantName: identity.tenantName ?? null, controlPlane: controlPlaneUrl };
  }

  private async adopt(credentials: PairingClaimResponse): Promise<{ runnerName: string }> {
    const config = this.deps.config();
    // As the seed: a claim answer without tenant_id belongs to the expected tenant, one without
    // a name keeps the configured name.
    if (config.expectedTenantId && credentials.tenant_id !== undefined && credentials.tenant_id !== config.expectedTenantId) {
      throw new Error(`This pairing belongs to another tenant (${credentials.tenant_id ?? 'none'}), not ${config.expectedTenantId}; nothing was stored.`);
    }
    const secrets = this.deps.secrets;
    if (!secrets) throw new Error('No secure place to keep the runner secret.');
    this.deps.registerSecret(credentials.runner_secret);
    await secrets.set(this.deps.account(config.controlPlaneUrl), credentials.runner_secret);
    const identity: RunnerIdentity = {
      runnerId: credentials.runner_id,
      tenantId: credentials.tenant_id ?? config.expectedTenantId ?? null,
      tenantName: credentials.tenant_name ?? null,
      name: credentials.name ?? config.runnerName,
      controlPlaneUrl: config.controlPlaneUrl,
      pairedAt: new Date(this.deps.clock.now()).toISOString(),
    };
    await this.deps.state.update((s) => ({ ...s, identity }));
    await this.connect(identity);
    return { runnerName: identity.name };
  }

  private async connect(identity: RunnerIdentity): Promise<void> {
    const secret = this.deps.secrets ? await this.deps.secrets.get(this.deps.account(identity.controlPlaneUrl)) : null;
    if (!secret) {
      this.deps.log.error('paired, but the runner secret is not in the secret store', { backend: this.deps.secretStorage.backend });
      return;
    }
    this.deps.registerSecret(secret);
    this.credentials = { runnerId: identity.runnerId, secret };
    this.connector = this.deps.connectorFor(identity.controlPlaneUrl);
    this.deps.onConnected(this.connector);
  }

  private async forget(identity: RunnerIdentity): Promise<void> {
    this.deps.onForgotten();
    this.credentials = null;
    this.connector = null;
    this.pairingState = null;
    await this.deps.secrets?.delete(this.deps.account(identity.controlPlaneUrl));
    await this.deps.state.update((s) => ({ ...s, identity: null }));
  }
}
