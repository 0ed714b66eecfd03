import type { HostEvent } from '../../../shared/contract';
import type { OperatorStatus, SignOutResult } from '../../../shared/operator';
import type { OperatorIdentity, RunnerPairingStartOutput, TokenResponse } from '../../../shared/protocol';
import type { TurnsSnapshot } from '../../../shared/turns';
import type { FetchLike } from '../connectors/http-json';
import { ConnectorError, isConnectorError } from '../connectors/errors';
import { CommandFailure } from '../base/dispatch';
import type { Clock, Logger } from '../base/ports';
import type { SecretStore } from '../secrets/secret-store';
import { ForgeClient } from './forge-client';
import { OAuthClient } from '../sign-in/oauth-client';
import { explainFailure, OperatorErrorCode } from './operator-errors';
import { OperatorSession } from './operator-session';
import { RequestBoardCalls } from './request-board';
import { SignInFlow } from '../sign-in/sign-in-flow';
import { operatorStatus } from './status';
import { TokenVault } from '../sign-in/token-vault';
import type { WorkLayerCalls } from '../planes/sechroom/work-layer-handlers';
import { WorkLayerOperator, workLayerAccessFromEnv, type WorkLayerOperatorDeps } from '../planes/sechroom/work-layer-operator';

export const OPERATOR_CLIENT_ID = 'runner-tray';

export interface OperatorServiceDeps {
  clock: Clock;
  log: Logger;
  random?: () => number;
  /** The effective control plane URL (settings plus overrides); read at every call. */
  controlPlaneUrl(): string;
  /** null when no secret store works: sign-in is refused with `secretProblem`. */
  secrets: SecretStore | null;
  secretProblem: string | null;
  fetch?: FetchLike;
  registerSecret(secret: string): void;
  knownSecrets(): readonly string[];
  emit(event: HostEvent): void;
  /** This runner's turns, to say which belong to a request. */
  turns(): TurnsSnapshot;
  clientId?: string;
  /**
   * The Work Layer the Work view shows for a profile (null: none named), asked at every call.
   * Default: from the environment (RUNNER_TRAY_SECHROOM_URL, RUNNER_TRAY_SECHROOM_TENANT, SECHROOM_TOKEN).
   */
  workLayer?(profile: string | null): Promise<WorkLayerOperatorDeps['access']>;
}

interface Account {
  origin: string;
  oauth: OAuthClient;
  forge: ForgeClient;
  session: OperatorSession | null;
  loading: Promise<void>;
}

/**
 * The operator side of the core: sign-in with the OAuth device flow, the signed-in
 * session, and Forge build requests with their lifecycle. Everything is per control
 * plane; changing the control plane URL switches to that control plane's sign-in.
 */
export class OperatorService {
  private account: Account | null = null;
  private readonly vault: TokenVault | null;
  private readonly flow: SignInFlow;
  private lastJson = '';
  private started = false;
  /** Forge's build requests: the board, one request, their lifecycle and confirmations. */
  readonly requests: RequestBoardCalls;
  /** The operator's Work view of a Sechroom Work Layer. */
  readonly workLayer: WorkLayerCalls;

  constructor(private readonly deps: OperatorServiceDeps) {
    this.requests = new RequestBoardCalls({
      call: (fn) => this.call(fn),
      turns: () => deps.turns(),
      now: () => deps.clock.now(),
      log: deps.log,
      roleMayHaveChanged: () => void this.refreshIdentity(),
    });
    this.vault = deps.secrets ? new TokenVault(deps.secrets, deps.registerSecret) : null;
    const log = deps.log.child('work-layer');
    const operatorFor = async (profile: string | null | undefined): Promise<WorkLayerOperator> => {
      const access = deps.workLayer ? await deps.workLayer(profile ?? null) : workLayerAccessFromEnv(process.env);
      if (access.ok && access.access.tokens.kind === 'static') deps.registerSecret(await access.access.tokens.accessToken());
      return new WorkLayerOperator({ access, log, ...(deps.fetch ? { fetch: deps.fetch } : {}), knownSecrets: deps.knownSecrets });
    };
    this.workLayer = {
      board: async (profile) => (await operatorFor(profile)).board(),
      briefAction: async ({ profile, ...input }) => (await operatorFor(profile)).briefAction(input),
      returnForRevision: async ({ profile, ...input }) => (await operatorFor(profile)).returnForRevision(input),
    };
    this.flow = new SignInFlow({
      oauth: {
        startDeviceAuthorization: () => this.current().oauth.startDeviceAuthorization(),
        pollDeviceToken: (code) => this.current().oauth.pollDeviceToken(code),
      },
      clock: deps.clock,
      log: deps.log.child('sign-in'),
      onState: () => this.changed(),
      onTokens: (tokens) => this.adopt(tokens),
      registerSecret: deps.registerSecret,
      ...(deps.random ? { random: deps.random } : {}),
    });
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.ensureAccount();
    const session = this.account?.session;
    if (session?.signedIn) void this.refreshIdentity();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.flow.cancel();
  }

  status(): OperatorStatus {
    return operatorStatus({
      origin: this.account?.origin ?? originOf(this.deps.controlPlaneUrl()),
      secretProblem: this.vault ? null : (this.deps.secretProblem ?? 'No secure place to keep the operator sign-in.'),
      session: this.account?.session?.state ?? { state: 'checking' },
      signIn: this.flow.current,
      signInRunning: this.flow.running,
    });
  }

  async currentStatus(): Promise<OperatorStatus> {
    await this.ensureAccount();
    return this.status();
  }

  async signIn(): Promise<OperatorStatus> {
    const account = await this.ensureAccount();
    if (!this.vault || !account.session) {
      throw new CommandFailure(OperatorErrorCode.noSecretStore, `Sign-in is not possible: ${this.deps.secretProblem ?? 'no secure place to keep the tokens.'}`);
    }
    const state = account.session.state;
    if (state.state === 'signed_in') {
      throw new CommandFailure(
        OperatorErrorCode.alreadySignedIn,
        `You are already signed in${state.identity ? ` as ${state.identity.name}` : ''}. Sign out first.`,
      );
    }
    if (!this.flow.running) await this.flow.start();
    return this.status();
  }

  async cancelSignIn(): Promise<OperatorStatus> {
    await this.ensureAccount();
    this.flow.cancel();
    return this.status();
  }

  /** Revoke at the server (RFC 7009), then delete locally, whatever the server said. */
  async signOut(): Promise<SignOutResult> {
    const account = await this.ensureAccount();
    this.flow.clear();
    const session = account.session;
    if (!session) return { status: this.status(), revoked: false, message: null };
    const previous = session.tokens;
    if (!previous) {
      await session.forget();
      return { status: this.status(), revoked: false, message: null };
    }
    let revoked = false;
    let message: string | null = null;
    try {
      if (previous.refreshToken) revoked = await account.oauth.revoke(previous.refreshToken, 'refresh_token');
      revoked = (await account.oauth.revoke(previous.accessToken, 'access_token')) || revoked;
      if (!revoked) message = 'Signed out here. The control plane offers no way to revoke sign-ins; the tokens expire on their own.';
    } catch (error) {
      message = `Signed out here, but the control plane could not be told (${explainFailure(error).message.replace(/[.\s]+$/, '')}). The tokens expire on their own.`;
    }
    await session.forget();
    this.deps.log.info('operator signed out', { revoked });
    return { status: this.status(), revoked, message };
  }

  /**
   * Pairing as the seed does it when an operator is signed in: the authenticated
   * `runner.pairing.start`. null when nobody is signed in to this control plane or the
   * server has no such command (404), so the runner falls back to the unauthenticated start.
   */
  async runnerPairingStart(input: { name: string; platform: string }): Promise<RunnerPairingStartOutput | null> {
    const account = await this.ensureAccount();
    const session = account.session;
    if (!session?.signedIn) return null;
    try {
      return await session.authorized((token) => account.forge.runnerPairingStart(input, token));
    } catch (error) {
      if (isConnectorError(error, 'not_found') || (error instanceof ConnectorError && error.status === 404)) return null;
      throw explainFailure(error);
    }
  }

  /** A Forge call with the operator's token; every failure comes back as one readable line. */
  private async call<T>(fn: (forge: ForgeClient, token: string) => Promise<T>): Promise<T> {
    const account = await this.ensureAccount();
    if (!account.session)
      throw new CommandFailure(OperatorErrorCode.noSecretStore, `Sign-in is not possible: ${this.deps.secretProblem ?? 'no secret store.'}`);
    const session = account.session;
    try {
      return await session.authorized((token) => fn(account.forge, token));
    } catch (error) {
      throw explainFailure(error);
    }
  }

  private async adopt(tokens: TokenResponse): Promise<void> {
    const account = this.current();
    this.deps.registerSecret(tokens.access_token);
    if (tokens.refresh_token) this.deps.registerSecret(tokens.refresh_token);
    let identity: OperatorIdentity;
    try {
      identity = await account.forge.me(tokens.access_token);
    } catch (error) {
      // Do not leave a live grant behind that nobody holds.
      if (tokens.refresh_token) void account.oauth.revoke(tokens.refresh_token, 'refresh_token').catch(() => false);
      throw new Error(`Signed in, but could not read who you are: ${explainFailure(error).message}`);
    }
    if (!account.session) throw new Error('No secure place to keep the operator sign-in.');
    await account.session.adopt(tokens, identity);
    this.deps.log.info('operator identity', { operator: identity.operator_id, role: identity.role, tenant: identity.tenant_id });
  }

  private async refreshIdentity(): Promise<void> {
    const account = this.account;
    if (!account?.session?.signedIn) return;
    try {
      const identity = await account.session.authorized((token) => account.forge.me(token));
      await account.session.setIdentity(identity);
    } catch (error) {
      this.deps.log.warn('could not confirm the operator identity', { error: explainFailure(error).message });
    }
  }

  /** The account of the control plane in the settings now; switching cancels a running sign-in. */
  private async ensureAccount(): Promise<Account> {
    const origin = originOf(this.deps.controlPlaneUrl());
    if (this.account?.origin !== origin) {
      if (this.account) {
        this.account.session?.close();
        this.flow.clear();
        this.deps.log.info('control plane changed: switching the operator sign-in', { controlPlane: origin });
      }
      const common = { baseUrl: origin, knownSecrets: this.deps.knownSecrets, ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}) };
      const oauth = new OAuthClient({ ...common, clientId: this.deps.clientId ?? OPERATOR_CLIENT_ID });
      const session = this.vault
        ? new OperatorSession({
            clock: this.deps.clock,
            log: this.deps.log.child('session'),
            vault: this.vault,
            controlPlaneUrl: origin,
            oauth,
            onChange: () => this.changed(),
          })
        : null;
      this.account = { origin, oauth, forge: new ForgeClient(common), session, loading: session ? session.load() : Promise.resolve() };
      this.changed();
    }
    await this.account.loading;
    return this.account;
  }

  private current(): Account {
    if (!this.account) throw new Error('the operator service has not started');
    return this.account;
  }

  private changed(): void {
    const status = this.status();
    const json = JSON.stringify(status);
    if (json === this.lastJson) return;
    this.lastJson = json;
    this.deps.emit({ event: 'operator:state', payload: status });
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
