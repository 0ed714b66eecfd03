import { z } from 'zod';
import { html, json } from '../../http/reply';
import type { RequestCtx, RouteDef } from '../../http/router';
import { parseWith } from '../../routes/parse';
import { SechroomConfigPatchSchema } from '../config';
import { livePage } from '../pages/live-page';
import {
  BundleInputSchema,
  CompletionQuerySchema,
  CreateBriefInputSchema,
  CreateDecompositionInputSchema,
  CreateTaskInputSchema,
  LeaseCancelInputSchema,
  LeaseQuerySchema,
  MintTokenInputSchema,
  OfferQuerySchema,
  TaskQuerySchema,
  TelemetryQuerySchema,
  TrickleInputSchema,
} from './admin-schemas';
import type { SechroomAdmin } from './sechroom-admin';

const NoInputSchema = z.strictObject({});
const noInput = (ctx: RequestCtx) => parseWith(NoInputSchema, ctx.body);
const query = <T extends z.ZodType>(schema: T, ctx: RequestCtx): z.infer<T> => parseWith(schema, Object.fromEntries(ctx.query), 'query');

/** `/_emulator/sechroom/*`: JSON (and the live page), no auth, loopback only, same conventions as `/_emulator/`. */
export function sechroomAdminRoutes(admin: SechroomAdmin): RouteDef[] {
  const A = '/_emulator/sechroom';
  const get = (pattern: string, handler: (ctx: RequestCtx) => unknown): RouteDef => ({
    method: 'GET',
    pattern: `${A}${pattern}`,
    handler: (ctx) => json(200, handler(ctx)),
  });
  const post = (pattern: string, handler: (ctx: RequestCtx) => unknown, status = 200, method: RouteDef['method'] = 'POST'): RouteDef => ({
    method,
    pattern: `${A}${pattern}`,
    handler: (ctx) => json(status, handler(ctx) ?? { ok: true }),
  });
  const id = (ctx: RequestCtx) => ctx.params.id!;
  return [
    get('/state', () => admin.state()),
    { method: 'GET', pattern: `${A}/live`, handler: () => html(200, livePage(admin)) },
    get('/config', () => admin.config()),
    post('/config', (ctx) => admin.setConfig(parseWith(SechroomConfigPatchSchema, ctx.body)), 200, 'PATCH'),
    post('/tokens', (ctx) => admin.mintToken(parseWith(MintTokenInputSchema, ctx.body)), 201),

    get('/briefs', () => admin.listBriefs()),
    post('/briefs', (ctx) => admin.createBrief(parseWith(CreateBriefInputSchema, ctx.body)), 201),
    get('/decompositions', () => admin.listDecompositions()),
    post('/decompositions', (ctx) => admin.createDecomposition(parseWith(CreateDecompositionInputSchema, ctx.body)), 201),
    get('/bundles', () => admin.listBundles()),
    post('/bundles', (ctx) => admin.publishBundle(parseWith(BundleInputSchema, ctx.body)), 201),
    get('/tasks', (ctx) => admin.listTasks(query(TaskQuerySchema, ctx))),
    post('/tasks', (ctx) => admin.createTask(parseWith(CreateTaskInputSchema, ctx.body)), 201),
    get('/tasks/:id', (ctx) => admin.getTask(id(ctx))),

    get('/instances', () => admin.listInstances()),
    post('/instances/:id/expire', (ctx) => (noInput(ctx), admin.lapseInstance(id(ctx)))),
    get('/offers', (ctx) => admin.listOffers(query(OfferQuerySchema, ctx))),
    get('/leases', (ctx) => admin.listLeases(query(LeaseQuerySchema, ctx))),
    post('/leases/:id/expire', (ctx) => (noInput(ctx), admin.expireLease(id(ctx)))),
    post('/leases/:id/cancel', (ctx) => admin.cancelLease(id(ctx), parseWith(LeaseCancelInputSchema, ctx.body).reason)),
    get('/completions', (ctx) => admin.listCompletions(query(CompletionQuerySchema, ctx))),
    get('/telemetry', (ctx) => admin.listTelemetry(query(TelemetryQuerySchema, ctx))),
    post('/sweep', (ctx) => (noInput(ctx), { expired: admin.sweep() })),

    post('/trickle', (ctx) => admin.setTrickle(parseWith(TrickleInputSchema, ctx.body))),
    post('/trickle/once', (ctx) => (noInput(ctx), admin.trickleOnce()), 201),
    post('/seed/demo', (ctx) => (noInput(ctx), admin.seedDemo())),
  ];
}
