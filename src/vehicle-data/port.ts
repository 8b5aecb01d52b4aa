// The vehicle-data provider port: decode an identifier, build its assembly tree, enrich it. Real providers
// answer asynchronously (a job is submitted, then polled), so every call may answer "pending until ready_at".
import type { VehicleIdentifier } from '../domain/vehicles/identifier.ts';

/** One node of the HCA taxonomy: a vehicle system, an assembly in it, or a part of an assembly. */
export interface HcaNode {
  hca_id: string;
  parent_id: string | null;
  level: 'system' | 'assembly' | 'part';
  name: string;
  synonyms: string[];
}

/** A variant a chassis number may be (a chassis prefix can stand for several). */
export interface VariantCandidate {
  variant: string;
  fuel: string;
  body: string;
}

/** What the provider decoded from an identifier. A chassis number tells the model, rarely the variant, never trim or colour. */
export interface DecodedVehicle {
  make: string;
  model: string;
  /** null when the identifier stands for several variants (see `candidates`). */
  variant: string | null;
  trim: string | null;
  colour: string | null;
  body: string;
  fuel: string;
  year: number;
  vin: string | null;
  /** Every variant the identifier may be; one when it is known. */
  candidates: VariantCandidate[];
  decoded_from: 'vrm' | 'chassis_number';
}

/** Part numbers and images of one node of a vehicle's tree. */
export interface Enrichment {
  hca_id: string;
  part_numbers: string[];
  images: string[];
}

/** An answer of the provider: not ready until `ready_at`, or ready. */
export type ProviderAnswer<T> = { status: 'pending'; ready_at: Date } | { status: 'ready'; value: T };

/** A source of vehicle data. `since` is when the work was first asked for (the provider's job started then). */
export interface VehicleDataProvider {
  readonly name: string;
  /** Decodes `identifier`; ready with null when the provider does not know the vehicle. */
  decode(identifier: VehicleIdentifier, since: Date): Promise<ProviderAnswer<DecodedVehicle | null>>;
  /** The assembly tree of a decoded vehicle (nodes in taxonomy order, parents before children). */
  buildTree(vehicle: DecodedVehicle, since: Date): Promise<ProviderAnswer<HcaNode[]>>;
  /** Part numbers and images of the tree's nodes. */
  enrich(vehicle: DecodedVehicle, tree: HcaNode[], since: Date): Promise<ProviderAnswer<Enrichment[]>>;
  /** The whole taxonomy (free-text search runs over it). */
  taxonomy(): Promise<{ version: string; nodes: HcaNode[] }>;
}
