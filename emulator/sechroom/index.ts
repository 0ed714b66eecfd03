import { json } from '../http/reply';
import type { RouteDef } from '../http/router';
import type { Services } from '../services';
import { sechroomAdminRoutes } from './admin/admin-routes';
import { SechroomAdmin } from './admin/sechroom-admin';
import type { SechroomConfig } from './config';
import { SechroomTrickle } from './demo/trickle';
import { SECHROOM_BASE } from './routes/base';
import { executorRoutes } from './routes/executor-routes';
import { workRoutes } from './routes/work-routes';
import { createSechroomServices } from './services';

export { SechroomAdmin } from './admin/sechroom-admin';
export type { SechroomConfig } from './config';
export { SECHROOM_BASE } from './routes/base';

export interface SechroomPlane {
  admin: SechroomAdmin;
  routes: RouteDef[];
  sweep(): number;
  stop(): void;
}

/** The Sechroom Work Layer, mounted on the emulator's shared services, HTTP layer and admin conventions. */
export function createSechroomPlane(base: Services, config: Partial<SechroomConfig> = {}): SechroomPlane {
  const services = createSechroomServices(base, config);
  const trickle = new SechroomTrickle(base.ctx);
  const admin = new SechroomAdmin(services, trickle);
  trickle.attach(admin);
  const routes: RouteDef[] = [...executorRoutes(services), ...workRoutes(services), ...sechroomAdminRoutes(admin)];
  const index: RouteDef = {
    method: 'GET',
    pattern: '/_emulator/sechroom',
    handler: () => json(200, { base: SECHROOM_BASE, routes: [...routes, index].map(({ method, pattern, body }) => ({ method, pattern, body })) }),
  };
  return {
    admin,
    routes: [...routes, index],
    sweep: () => services.leases.sweep(),
    stop: () => {
      trickle.stop();
      services.offerWaiters.releaseAll();
      services.leaseNotices.releaseAll();
    },
  };
}
