import { z } from 'zod';
import { OperatorRoleSchema } from '../../shared/protocol';
import { hashSecret, safeEqual } from '../crypto';
import type { BrowserSession } from '../domain/identity';
import { HttpError, html as htmlReply, json, redirect, type Reply } from '../http/reply';
import type { RequestCtx, RouteDef } from '../http/router';
import { STYLESHEET, type SafeHtml } from '../pages/html';
import { layout } from '../pages/layout';
import {
  codeEntryView,
  confirmationView,
  deviceSignInDecisionView,
  homeView,
  issueCodeView,
  issuedCodeView,
  messageView,
  pairingDecisionView,
  signInView,
} from '../pages/views';
import type { Services } from '../services';

const COOKIE = 'emu_session';
const DecisionFormSchema = z.object({ code: z.string().max(40), decision: z.enum(['approve', 'deny']), csrf: z.string().max(200) });
const IssueCodeFormSchema = z.object({ name: z.string().trim().max(100).optional(), csrf: z.string().max(200) });
const SignInFormSchema = z.object({
  operator_id: z.string().max(100).optional(),
  name: z.string().trim().min(1).max(100).optional(),
  role: OperatorRoleSchema.optional(),
  next: z.string().max(500).optional(),
});

/** Only same-site relative paths, so `next` cannot send a signed-in human elsewhere. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/';
}

/** What every page route shares: the session, the page frame, the form-post checks and the wrong-code limiter. */
function pageKit(s: Services) {
  const session = (ctx: RequestCtx) => s.identity.session(ctx.cookies[COOKIE]);
  const page = (status: number, title: string, body: SafeHtml, sess: BrowserSession | null, headers?: Record<string, string>): Reply =>
    htmlReply(status, layout(title, body, { operator: sess?.operator ?? null, csrf: sess?.csrf }), headers);
  const toSignIn = (ctx: RequestCtx) => redirect(`/signin?next=${encodeURIComponent(ctx.path + (ctx.query.toString() ? `?${ctx.query}` : ''))}`);
  // Browsers send Origin on form posts; refuse any that is not this server (by either loopback name).
  const foreignOrigin = (ctx: RequestCtx) => {
    const origin = ctx.req.headers.origin;
    return !!origin && origin !== s.ctx.baseUrl && origin !== s.ctx.baseUrl.replace('127.0.0.1', 'localhost');
  };
  const checkPost = (ctx: RequestCtx, sess: BrowserSession, csrf: string | undefined) => {
    if (foreignOrigin(ctx)) throw new HttpError(403, 'forbidden', 'cross-site form post refused');
    if (!csrf || !safeEqual(csrf, sess.csrf)) throw new HttpError(403, 'forbidden', 'stale or missing form token; reload the page');
  };
  const limiterKeys = (name: string, ctx: RequestCtx) => [`${name}:session:${hashSecret(ctx.cookies[COOKIE] ?? '')}`, `${name}:ip:${ctx.ip}`];
  const rateLimited = (ctx: RequestCtx, name: string, sess: BrowserSession): Reply | null => {
    const wait = s.limiter.blockedFor(limiterKeys(name, ctx));
    if (!wait) return null;
    const minutes = Math.max(1, Math.ceil(wait / 60_000));
    return page(
      429,
      'Too many attempts',
      messageView('Too many wrong codes', 'error', `Too many wrong codes. Try again in ${minutes} minute${minutes > 1 ? 's' : ''}.`),
      sess,
      {
        'retry-after': String(Math.ceil(wait / 1000)),
      },
    );
  };
  return { session, page, toSignIn, foreignOrigin, checkPost, limiterKeys, rateLimited };
}
type PageKit = ReturnType<typeof pageKit>;

/** Server-rendered pages: dev sign-in, runner pairing approval, operator device approval, confirmations. */
export function pageRoutes(s: Services): RouteDef[] {
  const k = pageKit(s);
  return [...basicRoutes(k), ...signInRoutes(s, k), ...approvalRoutes(s, k), ...runnerCodeRoutes(s, k), ...confirmRoutes(s, k)];
}

/** Home, health, favicon and the stylesheet. */
function basicRoutes({ session, page }: PageKit): RouteDef[] {
  return [
    { method: 'GET', pattern: '/', handler: (ctx) => page(200, 'Home', homeView(session(ctx)?.operator ?? null), session(ctx)) },
    { method: 'GET', pattern: '/healthz', handler: () => json(200, { ok: true }) },
    { method: 'GET', pattern: '/favicon.ico', handler: () => ({ kind: 'empty', status: 204 }) },
    {
      method: 'GET',
      pattern: '/_assets/emulator.css',
      handler: () => ({ kind: 'raw', status: 200, text: STYLESHEET, contentType: 'text/css; charset=utf-8' }),
    },
  ];
}

/** Dev sign-in and sign-out. */
function signInRoutes(s: Services, { session, page, foreignOrigin, checkPost }: PageKit): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/signin',
      handler: (ctx) => {
        const next = safeNext(ctx.query.get('next') ?? undefined);
        return page(200, 'Sign in', signInView(s.identity.listOperators(), s.identity.listTenants(), next), session(ctx));
      },
    },
    {
      method: 'POST',
      pattern: '/signin',
      body: 'form',
      handler: (ctx) => {
        if (foreignOrigin(ctx)) throw new HttpError(403, 'forbidden', 'cross-site sign-in refused');
        const form = SignInFormSchema.safeParse(ctx.body);
        if (!form.success) throw new HttpError(400, 'invalid_request', 'pick an operator, or give a name and a role');
        const { operator_id, name, role, next } = form.data;
        const operator = operator_id ? s.identity.getOperator(operator_id) : name && role ? s.identity.findOrCreateOperator(name, role) : undefined;
        if (!operator) throw new HttpError(400, 'invalid_request', 'unknown operator; pick one from the list or type a name and role');
        const { cookie } = s.identity.createSession(operator.id);
        return redirect(safeNext(next), { 'set-cookie': `${COOKIE}=${cookie}; HttpOnly; SameSite=Lax; Path=/` });
      },
    },
    {
      method: 'POST',
      pattern: '/signout',
      body: 'form',
      handler: (ctx) => {
        const sess = session(ctx);
        if (sess) {
          checkPost(ctx, sess, (ctx.body as Record<string, string>).csrf);
          s.identity.endSession(ctx.cookies[COOKIE]);
        }
        return redirect('/signin', { 'set-cookie': `${COOKIE}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0` });
      },
    },
  ];
}

/** The two approval pages: runner pairing and operator device sign-in. */
function approvalRoutes(s: Services, k: PageKit): RouteDef[] {
  return [
    ...approvalPage(s, k, {
      name: 'device',
      path: '/device',
      title: 'Pair a runner',
      hint: 'Type the code the runner shows (XXXX-XXXX). Letters only; case and dash do not matter.',
      find: (code) => s.pairing.findByCode(code),
      details: (record, csrf) => pairingDecisionView(record, csrf),
      decide: (code, sess, decision) => s.pairing.decide(code, decision, { operatorId: sess.operator.id, tenantId: sess.operator.tenant_id }),
      done: (d) =>
        d === 'approve'
          ? ['Runner paired', 'The runner is paired. It will pick up its credentials within seconds.']
          : ['Pairing denied', 'The runner was refused.'],
    }),
    ...approvalPage(s, k, {
      name: 'oauth-device',
      path: '/oauth/device',
      title: 'Approve a sign-in',
      hint: 'Type the code the application shows (XXXX-XXXX).',
      find: (code) => s.oauth.findByUserCode(code),
      details: (record, csrf) => deviceSignInDecisionView(record, csrf),
      decide: (code, sess, decision) => s.oauth.decide(code, sess.operator, decision),
      done: (d) => (d === 'approve' ? ['Signed in', 'The application is now signed in as you.'] : ['Sign-in denied', 'The application was refused.']),
    }),
  ];
}

/** An operator issues a pairing code for a new runner. */
function runnerCodeRoutes(s: Services, { session, page, toSignIn, checkPost }: PageKit): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/runners/new',
      handler: (ctx) => {
        const sess = session(ctx);
        if (!sess) return toSignIn(ctx);
        return page(200, 'Add a runner', issueCodeView(sess.csrf), sess);
      },
    },
    {
      method: 'POST',
      pattern: '/runners/new',
      body: 'form',
      handler: (ctx) => {
        const sess = session(ctx);
        if (!sess) return redirect('/signin?next=%2Frunners%2Fnew');
        const form = IssueCodeFormSchema.safeParse(ctx.body);
        if (!form.success) throw new HttpError(400, 'invalid_request', 'form needs csrf and an optional name (up to 100 characters)');
        checkPost(ctx, sess, form.data.csrf);
        const record = s.pairing.issueCode(sess.operator, form.data.name || null, ctx.ip);
        return page(200, 'Your runner code', issuedCodeView(record), sess);
      },
    },
  ];
}

/** One approval page (runner pairing or operator sign-in): code entry, details, decision. */
function approvalPage<R extends { status: string; user_code: string }>(
  s: Services,
  { session, page, toSignIn, checkPost, limiterKeys, rateLimited }: PageKit,
  cfg: {
    name: string;
    path: string;
    title: string;
    hint: string;
    find: (code: string) => R | undefined;
    details: (record: R, csrf: string) => SafeHtml;
    decide: (code: string, sess: BrowserSession, decision: 'approve' | 'deny') => unknown;
    done: (decision: 'approve' | 'deny') => [string, string];
  },
): RouteDef[] {
  const wrongCode = (ctx: RequestCtx, sess: BrowserSession, code: string): Reply => {
    s.limiter.recordFailure(limiterKeys(cfg.name, ctx));
    s.ctx.events.emit('page.wrong_code', { page: cfg.name });
    return page(400, cfg.title, codeEntryView(cfg.title, cfg.path, cfg.hint, 'That code is not valid or has expired. Check it and try again.', code), sess);
  };
  return [
    {
      method: 'GET',
      pattern: cfg.path,
      handler: (ctx) => {
        const sess = session(ctx);
        if (!sess) return toSignIn(ctx);
        const limited = rateLimited(ctx, cfg.name, sess);
        if (limited) return limited;
        const code = (ctx.query.get('code') ?? '').slice(0, 40);
        if (!code) return page(200, cfg.title, codeEntryView(cfg.title, cfg.path, cfg.hint), sess);
        const record = cfg.find(code);
        if (!record || record.status === 'expired') return wrongCode(ctx, sess, code);
        if (record.status !== 'pending') {
          return page(
            200,
            cfg.title,
            messageView(cfg.title, 'info', `This code was already used (${record.status}).`, { href: cfg.path, label: 'Enter another code' }),
            sess,
          );
        }
        return page(200, cfg.title, cfg.details(record, sess.csrf), sess);
      },
    },
    {
      method: 'POST',
      pattern: `${cfg.path}/decision`,
      body: 'form',
      handler: (ctx) => {
        const sess = session(ctx);
        if (!sess) return redirect(`/signin?next=${encodeURIComponent(cfg.path)}`);
        const form = DecisionFormSchema.safeParse(ctx.body);
        if (!form.success) throw new HttpError(400, 'invalid_request', 'form needs code, decision (approve|deny) and csrf');
        checkPost(ctx, sess, form.data.csrf);
        const limited = rateLimited(ctx, cfg.name, sess);
        if (limited) return limited;
        const record = cfg.find(form.data.code);
        if (!record || record.status === 'expired') return wrongCode(ctx, sess, form.data.code);
        if (record.status !== 'pending') {
          return page(409, cfg.title, messageView(cfg.title, 'info', `This code was already used (${record.status}).`), sess);
        }
        cfg.decide(form.data.code, sess, form.data.decision);
        const [title, text] = cfg.done(form.data.decision);
        return page(200, title, messageView(title, form.data.decision === 'approve' ? 'ok' : 'info', text), sess);
      },
    },
  ];
}

/** A human confirms or declines a held action. */
function confirmRoutes(s: Services, { session, page, toSignIn, checkPost }: PageKit): RouteDef[] {
  return [
    {
      method: 'GET',
      pattern: '/confirm/:id',
      handler: (ctx) => {
        const sess = session(ctx);
        if (!sess) return toSignIn(ctx);
        const record = s.confirmations.get(ctx.params.id!, sess.operator.tenant_id);
        if (!record) return page(404, 'Not found', messageView('Not found', 'error', 'No such confirmation.'), sess);
        const title = s.forge.row(String(record.input.build_request_id))?.title ?? null;
        return page(200, 'Confirm', confirmationView(record, title, sess.csrf, sess.operator.role === 'tenant_admin'), sess);
      },
    },
    {
      method: 'POST',
      pattern: '/confirm/:id',
      body: 'form',
      handler: (ctx) => {
        const sess = session(ctx);
        if (!sess) return toSignIn(ctx);
        const form = z.object({ csrf: z.string().max(200), decision: z.enum(['confirm', 'decline']) }).safeParse(ctx.body);
        if (!form.success) throw new HttpError(400, 'invalid_request', 'form needs decision (confirm|decline) and csrf');
        checkPost(ctx, sess, form.data.csrf);
        const record = s.confirmations.decide(ctx.params.id!, sess.operator, form.data.decision);
        const title = s.forge.row(String(record.input.build_request_id))?.title ?? null;
        return page(200, 'Confirm', confirmationView(record, title, sess.csrf, true), sess);
      },
    },
  ];
}
