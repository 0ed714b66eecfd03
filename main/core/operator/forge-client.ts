import {
  ConfirmationHandoffSchema,
  ConfirmationStatusSchema,
  ErrorBodySchema,
  FORGE_COMMANDS,
  OperatorIdentitySchema,
  RunnerPairingStartOutputSchema,
  commandResponseSchema,
  type RunnerPairingStartOutput,
  type ConfirmationHandoff,
  type ConfirmationStatus,
  type ForgeCommandId,
  type ForgeCommandInput,
  type ForgeCommandOutput,
  type OperatorIdentity,
} from '../../../shared/protocol';
import { redactText } from '../../../shared/redact';
import { ConnectorError } from '../connectors/errors';
import { JsonHttpClient, type FetchLike } from '../connectors/http-json';

const REQUEST_TIMEOUT_MS = 15_000;
const MAX_MESSAGE = 300;

/** A lifecycle command either ran, or a human must confirm it in the browser first. */
export type CommandAnswer<Id extends ForgeCommandId> = { kind: 'output'; output: ForgeCommandOutput<Id> } | { kind: 'handoff'; handoff: ConfirmationHandoff };

export interface ForgeClientOptions {
  baseUrl: string;
  fetch?: FetchLike;
  knownSecrets?: () => readonly string[];
}

/**
 * Forge operator commands (docs/protocol.md §5) with an operator bearer. Every answer is
 * parsed with the wire schema; refusals become a ConnectorError whose message carries the
 * server's own one line (redacted, clipped: it is untrusted display text).
 */
export class ForgeClient {
  private readonly http: JsonHttpClient;

  constructor(private readonly options: ForgeClientOptions) {
    this.http = new JsonHttpClient(options.baseUrl, options.fetch, options.knownSecrets);
  }

  get origin(): string {
    return this.http.origin;
  }

  async me(accessToken: string): Promise<OperatorIdentity> {
    const path = '/api/operator/me';
    const res = await this.http.request({ method: 'GET', path, bearer: accessToken, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status !== 200) throw this.refused(path, res.status, res.body);
    return this.http.parse(path, res, OperatorIdentitySchema);
  }

  async command<Id extends ForgeCommandId>(id: Id, input: ForgeCommandInput<Id>, accessToken: string): Promise<CommandAnswer<Id>> {
    const path = `/api/commands/${encodeURIComponent(id)}`;
    // Checked before it leaves: a strict Forge input that would be refused is our bug, not the server's.
    const checked = FORGE_COMMANDS[id].input.safeParse(input);
    if (!checked.success) throw new ConnectorError('rejected', `${id}: invalid input`, 400, 'invalid_request');
    const res = await this.http.request({ method: 'POST', path, body: { input: checked.data }, bearer: accessToken, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status === 202) return { kind: 'handoff', handoff: this.http.parse(id, res, ConfirmationHandoffSchema) };
    if (res.status !== 200) throw this.refused(id, res.status, res.body);
    const envelope = this.http.parse(id, res, commandResponseSchema(FORGE_COMMANDS[id].output));
    return { kind: 'output', output: envelope.output as ForgeCommandOutput<Id> };
  }

  /**
   * The seed's authenticated pairing start: `runner.pairing.start` with `{ name, platform }`
   * answers a `user_code` the runner then claims. [seed]
   */
  async runnerPairingStart(input: { name: string; platform: string }, accessToken: string): Promise<RunnerPairingStartOutput> {
    const id = 'runner.pairing.start';
    const res = await this.http.request({ method: 'POST', path: `/api/commands/${id}`, body: { input }, bearer: accessToken, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status !== 200) throw this.refused(id, res.status, res.body);
    return this.http.parse(id, res, commandResponseSchema(RunnerPairingStartOutputSchema)).output;
  }

  async confirmation(id: string, accessToken: string): Promise<ConfirmationStatus> {
    const path = `/api/confirmations/${encodeURIComponent(id)}`;
    const res = await this.http.request({ method: 'GET', path, bearer: accessToken, timeoutMs: REQUEST_TIMEOUT_MS });
    if (res.status !== 200) throw this.refused(path, res.status, res.body);
    return this.http.parse(path, res, ConfirmationStatusSchema);
  }

  /** A 4xx with the server's error code and its message (the message is what a person reads). */
  private refused(what: string, status: number, body: unknown): ConnectorError {
    const parsed = ErrorBodySchema.safeParse(body);
    const code = parsed.success ? parsed.data.error.slice(0, 100) : undefined;
    const said = parsed.success && parsed.data.message ? oneLine(redactText(parsed.data.message, this.options.knownSecrets?.() ?? [])) : '';
    return new ConnectorError('rejected', said || `${what}: refused (${status}${code ? ` ${code}` : ''})`, status, code);
  }
}

function oneLine(text: string): string {
  const line = text.replace(/[\r\n\t]+/g, ' ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}
