// Picks the vehicle-data provider from configuration (VEHICLE_DATA_PROVIDER); the composition root makes one per service.
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { VehicleDataProvider } from './port.ts';
import { SandboxVehicleData } from './sandbox.ts';

/** The configured provider (the sandbox reading the shipped sample is the only adapter so far). */
export function vehicleDataProvider(config: Config, clock: Clock): VehicleDataProvider {
  const c = config.vehicleData;
  return new SandboxVehicleData(clock, { decodeMs: c.decodeDelayMs, treeMs: c.treeDelayMs, enrichMs: c.enrichDelayMs });
}
