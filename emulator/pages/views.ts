import type { OperatorRecord, TenantRecord } from '../domain/identity';
import type { PairingRecord } from '../domain/pairing';
import type { DeviceCodeRecord } from '../domain/oauth';
import type { ConfirmationRecord } from '../domain/forge/confirmations';
import { html, localTime, type SafeHtml } from './html';
import { notice } from './layout';

const ACTION_LABEL: Record<string, string> = {
  'software_factory.request.pause': 'Pause build request',
  'software_factory.request.cancel': 'Cancel build request',
  'software_factory.request.resume': 'Resume build request',
};

export function signInView(operators: OperatorRecord[], tenants: TenantRecord[], next: string): SafeHtml {
  const tenantName = (id: string) => tenants.find((t) => t.id === id)?.name ?? id;
  const list = operators.length
    ? html`<ul class="operators">
        ${operators.map(
          (op) =>
            html`<li>
              <span><strong>${op.name}</strong> <span class="muted">${op.role} · ${tenantName(op.tenant_id)}</span></span>
              <form method="post" action="/signin">
                <input type="hidden" name="operator_id" value="${op.id}" /> <input type="hidden" name="next" value="${next}" /><button type="submit">
                  Sign in as ${op.name}
                </button>
              </form>
            </li>`,
        )}
      </ul>`
    : html`<p class="muted">No operators yet. Create one below.</p>`;
  return html`<div class="card">
      <h1>Development sign-in</h1>
      <p class="muted">Stands in for the real sign-in. Pick an operator, or type a name and role.</p>
      ${list}
    </div>
    <div class="card">
      <h1>New operator</h1>
      <form method="post" action="/signin">
        <input type="hidden" name="next" value="${next}" /> <label for="name">Name</label><input type="text" id="name" name="name" maxlength="100" required />
        <label for="role">Role</label
        ><select id="role" name="role">
          <option value="tenant_admin">tenant_admin</option>
          <option value="member">member</option>
        </select>
        <div class="actions"><button class="primary" type="submit">Sign in</button></div>
      </form>
    </div>`;
}

export function codeEntryView(title: string, action: string, hint: string, error?: string, prefill = ''): SafeHtml {
  return html`<div class="card">
    <h1>${title}</h1>
    ${error ? notice('error', error) : ''}
    <p class="muted">${hint}</p>
    <form method="get" action="${action}">
      <label for="code">Code</label>
      <input class="code" type="text" id="code" name="code" value="${prefill}" autocomplete="off" autofocus placeholder="XXXX-XXXX" maxlength="20" required />
      <div class="actions"><button class="primary" type="submit">Continue</button></div>
    </form>
  </div>`;
}

export function pairingDecisionView(p: PairingRecord, csrf: string): SafeHtml {
  return html`<div class="card">
    <h1>Pair this runner?</h1>
    <p class="muted">Only pair a machine you recognise. It will run agent work for your tenant.</p>
    <dl>
      <dt>Code</dt>
      <dd><code>${p.user_code}</code></dd>
      <dt>Runner name</dt>
      <dd id="runner-name">${p.name}</dd>
      <dt>Platform</dt>
      <dd id="runner-platform">${p.platform}</dd>
      <dt>Hostname</dt>
      <dd id="runner-hostname">${p.hostname ?? 'not reported'}</dd>
      <dt>Source IP</dt>
      <dd id="runner-ip">${p.source_ip ?? 'unknown'}</dd>
      <dt>Runner version</dt>
      <dd>${p.runner_version ?? 'not reported'}</dd>
      <dt>Expires</dt>
      <dd>${localTime(p.expires_at)}</dd>
    </dl>
    ${decisionForms('/device/decision', p.user_code, csrf, 'Pair', 'Deny')}
  </div>`;
}

export function deviceSignInDecisionView(d: DeviceCodeRecord, csrf: string): SafeHtml {
  return html`<div class="card">
    <h1>Sign in an application?</h1>
    <p class="muted">An application asks to act as you. Approve only if you just started this sign-in.</p>
    <dl>
      <dt>Code</dt>
      <dd><code>${d.user_code}</code></dd>
      <dt>Application</dt>
      <dd id="client-id">${d.client_id}</dd>
      <dt>Access</dt>
      <dd>${d.scope ?? 'default'}</dd>
      <dt>Expires</dt>
      <dd>${localTime(d.expires_at)}</dd>
    </dl>
    ${decisionForms('/oauth/device/decision', d.user_code, csrf, 'Approve', 'Deny')}
  </div>`;
}

function decisionForms(action: string, code: string, csrf: string, yes: string, no: string): SafeHtml {
  return html`<div class="actions">
    <form method="post" action="${action}">
      <input type="hidden" name="code" value="${code}" /><input type="hidden" name="csrf" value="${csrf}" />
      <input type="hidden" name="decision" value="approve" /><button class="primary" type="submit">${yes}</button>
    </form>
    <form method="post" action="${action}">
      <input type="hidden" name="code" value="${code}" /><input type="hidden" name="csrf" value="${csrf}" />
      <input type="hidden" name="decision" value="deny" /><button class="danger" type="submit">${no}</button>
    </form>
  </div>`;
}

export function confirmationView(c: ConfirmationRecord, requestTitle: string | null, csrf: string, canDecide: boolean): SafeHtml {
  const reason = typeof c.input.reason === 'string' ? c.input.reason : null;
  const body = html`<dl>
    <dt>Action</dt>
    <dd>${ACTION_LABEL[c.command_id] ?? c.command_id}</dd>
    <dt>Build request</dt>
    <dd>${requestTitle ?? (typeof c.input.build_request_id === 'string' ? c.input.build_request_id : '')}</dd>
    <dt>Reason</dt>
    <dd>${reason ?? 'none given'}</dd>
    <dt>Status</dt>
    <dd id="confirmation-status">${c.status}</dd>
    <dt>Expires</dt>
    <dd>${localTime(c.expires_at)}</dd>
  </dl>`;
  if (c.status !== 'pending') {
    return html`<div class="card">
      <h1>Confirmation ${c.status}</h1>
      ${body} ${c.error ? notice('error', `${c.error.error}: ${c.error.message ?? ''}`) : ''}
    </div>`;
  }
  const forms = canDecide
    ? html`<div class="actions">
        ${['confirm', 'decline'].map(
          (d) =>
            html`<form method="post" action="/confirm/${c.id}">
              <input type="hidden" name="csrf" value="${csrf}" /> <input type="hidden" name="decision" value="${d}" /><button
                class="${d === 'confirm' ? 'primary' : 'danger'}"
                type="submit"
              >
                ${d === 'confirm' ? 'Confirm' : 'Decline'}
              </button>
            </form>`,
        )}
      </div>`
    : notice('error', 'Only a tenant_admin can confirm this action.');
  return html`<div class="card">
    <h1>Confirm this action?</h1>
    <p class="muted">The request title is text someone typed: read it, do not follow it.</p>
    ${body}${forms}
  </div>`;
}

/** "Add a runner": an operator gets a code for a runner started with `--user-code`. */
export function issueCodeView(csrf: string): SafeHtml {
  return html`<div class="card">
    <h1>Add a runner</h1>
    <p class="muted">
      Get a one-time code for a runner you start yourself, e.g. on a server: <code>runner-tray-headless --user-code XXXX-XXXX</code>. The code pairs that runner
      with your tenant.
    </p>
    <form method="post" action="/runners/new">
      <input type="hidden" name="csrf" value="${csrf}" />
      <label for="runner-name">Runner name (optional; the runner's own name is used otherwise)</label>
      <input type="text" id="runner-name" name="name" maxlength="100" />
      <div class="actions"><button class="primary" type="submit">Get a code</button></div>
    </form>
  </div>`;
}

export function issuedCodeView(p: PairingRecord): SafeHtml {
  return html`<div class="card">
    <h1>Your runner code</h1>
    <p>Start the runner with this code before ${localTime(p.expires_at)}:</p>
    <p><code class="code" id="issued-code">${p.user_code}</code></p>
    <p><code>runner-tray-headless --user-code ${p.user_code}</code></p>
    <p class="muted">Or paste it in the runner's Pairing view under "Have a code from the web? Enter it".</p>
    <p><a href="/runners/new">Get another code</a></p>
  </div>`;
}

export function messageView(title: string, kind: 'ok' | 'error' | 'info', text: string, link?: { href: string; label: string }): SafeHtml {
  return html`<div class="card">
    <h1>${title}</h1>
    ${notice(kind, text)}${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}
  </div>`;
}

export function homeView(operator: OperatorRecord | null): SafeHtml {
  return html`<div class="card">
    <h1>Runner Tray control plane emulator</h1>
    <p>${operator ? `Signed in as ${operator.name} (${operator.role}).` : 'Not signed in.'}</p>
    <ul>
      <li><a href="/device">Pair a runner</a> (device code)</li>
      <li><a href="/runners/new">Add a runner</a> (a code for <code>--user-code</code>)</li>
      <li><a href="/oauth/device">Approve an operator sign-in</a></li>
      <li><a href="/signin">Development sign-in</a></li>
      <li><a href="/_emulator/state">Admin state (JSON)</a></li>
      <li><a href="/_emulator/sechroom/live">Sechroom Work Layer: instances, leases and completions (live)</a></li>
    </ul>
  </div>`;
}
