// Picks the vehicle-data provider from configuration (VEHICLE_DATA_PROVIDER); one per service instance.
import type { Services } from '../context.ts';
import type { VehicleDataProvider } from './port.ts';
import { SandboxVehicleData } from './sandbox.ts';

const providers = new WeakMap<Services['config'], VehicleDataProvider>();

/** The configured provider of these services (the sandbox reading the shipped sample is the only adapter so far). */
export function vehicleData(services: Pick<Services, 'config' | 'clock'>): VehicleDataProvider {
  let p = providers.get(services.config);
  if (!p) {
    const c = services.config.vehicleData;
    p = new SandboxVehicleData(services.clock, { decodeMs: c.decodeDelayMs, treeMs: c.treeDelayMs, enrichMs: c.enrichDelayMs });
    providers.set(services.config, p);
  }
  return p;
}
