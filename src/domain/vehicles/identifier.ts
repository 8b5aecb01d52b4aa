// Vehicle identifiers (VehicleIdentifierV1): the canonical form and a stable key per vehicle. Pure.
import { z } from 'zod';
import { nameId } from '../../ids.ts';

/** Country (ISO 3166-1 alpha-2) and optional region a plate was issued in, as events store it. */
export const LocationSchema = z.object({ country: z.string(), region: z.string().optional() });

/** A chassis number (VIN) or a licence plate with where it was issued, as events store it (normalised). */
export const VehicleIdentifierSchema = z.union([
  z.object({ chassis_number: z.string() }),
  z.object({ vrm: z.object({ plate: z.string(), location: LocationSchema }) }),
]);
export type VehicleIdentifier = z.infer<typeof VehicleIdentifierSchema>;

// Codes Intl knows as regions that are not ISO 3166-1 countries (UK is reserved: the ISO code is GB).
const NOT_COUNTRIES = new Set(['UK', 'EU', 'EZ', 'UN', 'ZZ', 'QO']);
const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** True for an ISO 3166-1 alpha-2 country code in any letter case. */
export function isCountryCode(code: string): boolean {
  const upper = code.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper) || NOT_COUNTRIES.has(upper)) return false;
  return regions.of(upper) !== undefined;
}

/** Upper case with every space removed: `ab12 cde` -> `AB12CDE`. */
export function normalisePlate(plate: string): string {
  return plate.replace(/\s+/g, '').toUpperCase();
}

/** The canonical identifier: plates and chassis numbers upper case without spaces, codes upper case. */
export function normaliseVehicleIdentifier(id: VehicleIdentifier): VehicleIdentifier {
  if ('chassis_number' in id) return { chassis_number: normalisePlate(id.chassis_number) };
  const { country, region } = id.vrm.location;
  const r = region?.trim().toUpperCase();
  return { vrm: { plate: normalisePlate(id.vrm.plate), location: { country: country.trim().toUpperCase(), ...(r ? { region: r } : {}) } } };
}

/** A string naming one vehicle identifier, equal for equal canonical identifiers. */
export function vehicleKey(id: VehicleIdentifier): string {
  const n = normaliseVehicleIdentifier(id);
  if ('chassis_number' in n) return `chassis:${n.chassis_number}`;
  return `vrm:${n.vrm.location.country}:${n.vrm.location.region ?? ''}:${n.vrm.plate}`;
}

/** The stable id of the vehicle an identifier names (used for per-vehicle streams by the assembly lookups). */
export function vehicleIdOf(id: VehicleIdentifier): string {
  return nameId('vehicle', vehicleKey(id));
}
