import { SECHROOM_SCOPE } from '../../shared/protocol/sechroom';
import type { Services } from '../services';
import { DEFAULT_SECHROOM_CONFIG, type SechroomConfig } from './config';
import { SechroomAuth } from './domain/auth';
import { DispatchService } from './domain/dispatch';
import { InstanceService } from './domain/instances';
import { LeaseService } from './domain/leases';
import { OfferWaiters } from './domain/offer-waiters';
import { LeaseNoticeWaiters } from './domain/lease-notices';
import { WorkLifecycle } from './domain/lifecycle';
import { TelemetryService } from './domain/telemetry';
import { WorkStore } from './domain/work-store';
import { WorkPlans } from './domain/work-plans';

/** The Work Layer's services, built on the shared context, identity and OAuth of the emulator. */
export interface SechroomServices {
  base: Services;
  config: SechroomConfig;
  auth: SechroomAuth;
  work: WorkStore;
  instances: InstanceService;
  leases: LeaseService;
  dispatch: DispatchService;
  offerWaiters: OfferWaiters;
  leaseNotices: LeaseNoticeWaiters;
  lifecycle: WorkLifecycle;
  plans: WorkPlans;
  telemetry: TelemetryService;
}

export function createSechroomServices(base: Services, config: Partial<SechroomConfig> = {}): SechroomServices {
  const { ctx } = base;
  const cfg: SechroomConfig = { ...DEFAULT_SECHROOM_CONFIG, ...config };
  base.oauth.accessTtlByScope.set(SECHROOM_SCOPE, () => cfg.accessTokenTtlMs ?? ctx.config.accessTokenTtlMs);
  const work = new WorkStore(ctx);
  const instances = new InstanceService(ctx);
  const leases = new LeaseService(ctx, cfg, work);
  const dispatch = new DispatchService(ctx, cfg, work, instances, leases);
  const offerWaiters = new OfferWaiters(ctx.events, (id) => {
    const instance = instances.get(id);
    return instance ? dispatch.offersFor(instance) : [];
  });
  const leaseNotices = new LeaseNoticeWaiters(ctx, cfg);
  const lifecycle = new WorkLifecycle(ctx, work, leases);
  const telemetry = new TelemetryService(ctx, work);
  const plans = new WorkPlans(ctx, work);
  return {
    base,
    config: cfg,
    auth: new SechroomAuth(base.oauth, base.identity),
    work,
    instances,
    leases,
    dispatch,
    offerWaiters,
    leaseNotices,
    lifecycle,
    plans,
    telemetry,
  };
}
