import { CommandFailure } from '../base/dispatch';
import { ConnectorError } from '../connectors/errors';
import { errorText } from '../../../shared/errors';

/** Codes the operator commands answer with, so the window can react (e.g. show "Sign in"). */
export const OperatorErrorCode = {
  noSecretStore: 'no_secret_store',
  notSignedIn: 'not_signed_in',
  signInAgain: 'sign_in_again',
  alreadySignedIn: 'already_signed_in',
  invalidReason: 'invalid_reason',
  forbidden: 'forbidden',
  notFound: 'not_found',
  invalidTransition: 'invalid_transition',
  ceilingReached: 'ceiling_reached',
  refused: 'refused',
  unreachable: 'unreachable',
  serverError: 'server_error',
  badAnswer: 'bad_answer',
} as const;

/**
 * Turns whatever went wrong talking to the control plane into one line that says what
 * happened and what to do next. Server messages are untrusted display text, already
 * redacted and clipped by the Forge client.
 */
export function explainFailure(error: unknown): CommandFailure {
  if (error instanceof CommandFailure) return error;
  if (!(error instanceof ConnectorError)) {
    return new CommandFailure(OperatorErrorCode.serverError, `Something went wrong: ${errorText(error)}. Try again.`);
  }
  const said = error.message.replace(/[.\s]+$/, '');
  switch (error.kind) {
    case 'network':
    case 'timeout':
      return new CommandFailure(OperatorErrorCode.unreachable, `Cannot reach the control plane (${said}). Check the connection, then try again.`);
    case 'server':
      return new CommandFailure(OperatorErrorCode.serverError, `The control plane had an error (${error.status ?? 'unknown'}). Try again in a moment.`);
    case 'invalid_response':
      return new CommandFailure(OperatorErrorCode.badAnswer, `The control plane sent an answer this app does not understand (${said}). Try again later.`);
    case 'not_found':
      return new CommandFailure(OperatorErrorCode.notFound, 'That request is not there any more, or belongs to another tenant. Refresh the board.');
    case 'unauthorized':
      return new CommandFailure(OperatorErrorCode.signInAgain, 'The control plane no longer accepts your sign-in. Sign in again.');
    case 'rejected':
      if (error.status === 403) return new CommandFailure(OperatorErrorCode.forbidden, `Not allowed: ${said}. Ask a tenant admin to do it.`);
      if (error.code === 'ceiling_reached')
        return new CommandFailure(OperatorErrorCode.ceilingReached, `${capital(said)}. Raise the ceiling to resume.`, 'termination_bound');
      if (error.status === 409) return new CommandFailure(OperatorErrorCode.invalidTransition, `${capital(said)}. Refresh to see where the request is now.`);
      return new CommandFailure(OperatorErrorCode.refused, `The control plane refused: ${said}.`);
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
