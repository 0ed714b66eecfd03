import type { EmulatorContext } from './context';
import { ClaimWaiters } from './domain/claim-waiters';
import { CancelNotices } from './domain/cancel-notices';
import { ForgeCommands } from './domain/forge/commands';
import { ConfirmationService } from './domain/forge/confirmations';
import { ForgeStore } from './domain/forge/forge-store';
import { ForgeLifecycle } from './domain/forge/lifecycle';
import { ForgeWorkEffects } from './domain/forge/work-effects';
import { IdentityService } from './domain/identity';
import { McpService } from './domain/mcp';
import { OAuthService } from './domain/oauth';
import { PairingService } from './domain/pairing';
import { WrongCodeLimiter } from './domain/rate-limit';
import { RunnerService } from './domain/runners';
import { Scheduler } from './domain/scheduler';
import { UnitRuntime } from './domain/unit-runtime';
import { UnitStore } from './domain/units';
import { FaultInjector } from './http/faults';

/** Every service of one emulator, wired once. */
export interface Services {
  ctx: EmulatorContext;
  identity: IdentityService;
  runners: RunnerService;
  pairing: PairingService;
  units: UnitStore;
  forge: ForgeStore;
  scheduler: Scheduler;
  runtime: UnitRuntime;
  cancels: CancelNotices;
  waiters: ClaimWaiters;
  lifecycle: ForgeLifecycle;
  confirmations: ConfirmationService;
  commands: ForgeCommands;
  oauth: OAuthService;
  mcp: McpService;
  limiter: WrongCodeLimiter;
  faults: FaultInjector;
}

export function createServices(ctx: EmulatorContext): Services {
  const identity = new IdentityService(ctx);
  const tenant = () => identity.defaultTenantId();
  const runners = new RunnerService(ctx);
  const pairing = new PairingService(ctx, runners, tenant);
  const units = new UnitStore(ctx, tenant);
  const forge = new ForgeStore(ctx, tenant);
  const effects = new ForgeWorkEffects(ctx, forge);
  const scheduler = new Scheduler(ctx, runners, units, effects);
  const runtime = new UnitRuntime(ctx, units, effects);
  const cancels = new CancelNotices(ctx, (runnerId) => runtime.cancelsFor(runnerId));
  const waiters = new ClaimWaiters(
    (runnerId, interactiveOnly, runtimes) => scheduler.tryClaim(runnerId, interactiveOnly, runtimes),
    (runnerId) => runners.get(runnerId)?.revoked_at === null,
    (runnerId, canceling) => cancels.take(runnerId, canceling),
  );
  ctx.notifyWork = () => waiters.notify();
  const lifecycle = new ForgeLifecycle(ctx, forge, units);
  const confirmations = new ConfirmationService(ctx, lifecycle);
  const commands = new ForgeCommands(forge, lifecycle, confirmations, runners);
  const oauth = new OAuthService(ctx, identity);
  const mcp = new McpService(ctx, units);
  const limiter = new WrongCodeLimiter(ctx.now, () => ctx.config.rateLimit);
  const faults = new FaultInjector(ctx.random);
  return {
    ctx,
    identity,
    runners,
    pairing,
    units,
    forge,
    scheduler,
    runtime,
    cancels,
    waiters,
    lifecycle,
    confirmations,
    commands,
    oauth,
    mcp,
    limiter,
    faults,
  };
}
