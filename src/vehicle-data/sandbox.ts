// The sandbox vehicle-data provider: the shipped sample taxonomy and catalogue, answering after configurable
// delays measured on the injected clock (so lookups are asynchronous as in production, and tests move time).
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Clock } from '../clock.ts';
import { type VehicleIdentifier, normaliseVehicleIdentifier } from '../domain/vehicles/identifier.ts';
import type { DecodedVehicle, Enrichment, HcaNode, ProviderAnswer, VehicleDataProvider } from './port.ts';

/** How long the sandbox takes, from when the work was asked for. */
export interface SandboxDelays {
  decodeMs: number;
  treeMs: number;
  enrichMs: number;
}

interface SampleNode extends HcaNode {
  applies_to?: { fuel?: string[]; body?: string[] };
}

interface SampleVehicle {
  vrm: { plate: string; country: string; region?: string };
  vin: string;
  make: string;
  model: string;
  variant: string;
  trim: string;
  colour: string;
  body: string;
  fuel: string;
  year: number;
}

/** Characters of a VIN that name the model line (WMI + VDS + check digit + year + plant): several variants may share them. */
export const CHASSIS_PREFIX_LENGTH = 11;

const sampleFile = (name: string) => new URL(`./sample/${name}`, import.meta.url);

/** The shipped sample: HCA taxonomy and vehicle catalogue (read once). */
export const sample = (() => {
  let cached: { version: string; nodes: SampleNode[]; vehicles: SampleVehicle[] } | null = null;
  return () => {
    if (!cached) {
      const taxonomy = JSON.parse(fs.readFileSync(sampleFile('taxonomy.json'), 'utf8')) as { version: string; nodes: SampleNode[] };
      const catalogue = JSON.parse(fs.readFileSync(sampleFile('vehicles.json'), 'utf8')) as { vehicles: SampleVehicle[] };
      cached = { version: taxonomy.version, nodes: taxonomy.nodes, vehicles: catalogue.vehicles };
    }
    return cached;
  };
})();

/** The sandbox adapter of the vehicle-data port. */
export class SandboxVehicleData implements VehicleDataProvider {
  readonly name = 'sandbox';
  constructor(
    private readonly clock: Clock,
    private readonly delays: SandboxDelays,
  ) {}

  async decode(identifier: VehicleIdentifier, since: Date): Promise<ProviderAnswer<DecodedVehicle | null>> {
    return this.after(since, this.delays.decodeMs, () => decodeSample(identifier));
  }

  async buildTree(vehicle: DecodedVehicle, since: Date): Promise<ProviderAnswer<HcaNode[]>> {
    return this.after(since, this.delays.treeMs, () => treeOf(vehicle));
  }

  async enrich(vehicle: DecodedVehicle, tree: HcaNode[], since: Date): Promise<ProviderAnswer<Enrichment[]>> {
    return this.after(since, this.delays.enrichMs, () => tree.map((n) => enrichmentOf(vehicle, n)));
  }

  async taxonomy(): Promise<{ version: string; nodes: HcaNode[] }> {
    const s = sample();
    return { version: s.version, nodes: s.nodes.map(plainNode) };
  }

  private after<T>(since: Date, ms: number, answer: () => T): ProviderAnswer<T> {
    const readyAt = new Date(since.getTime() + ms);
    if (this.clock.now() < readyAt) return { status: 'pending', ready_at: readyAt };
    return { status: 'ready', value: answer() };
  }
}

function plainNode(n: SampleNode): HcaNode {
  return { hca_id: n.hca_id, parent_id: n.parent_id, level: n.level, name: n.name, synonyms: n.synonyms };
}

/** A VRM names one registered vehicle; a chassis number names it exactly only if the catalogue has that VIN, else its model line. */
function decodeSample(identifier: VehicleIdentifier): DecodedVehicle | null {
  const id = normaliseVehicleIdentifier(identifier);
  const { vehicles } = sample();
  if ('vrm' in id) {
    const v = vehicles.find((x) => x.vrm.plate === id.vrm.plate && x.vrm.country === id.vrm.location.country);
    return v ? { ...details(v), trim: v.trim, colour: v.colour, vin: v.vin, decoded_from: 'vrm' } : null;
  }
  const vin = id.chassis_number;
  const line = vehicles.filter((x) => x.vin.slice(0, CHASSIS_PREFIX_LENGTH) === vin.slice(0, CHASSIS_PREFIX_LENGTH));
  const first = line[0];
  if (vin.length !== 17 || !first) return null;
  const candidates = [...new Map(line.map((x) => [x.variant, { variant: x.variant, fuel: x.fuel, body: x.body }])).values()];
  // The chassis number tells the model line; the variant only when the line has one (trim and colour never).
  return { ...details(first), variant: candidates.length === 1 ? first.variant : null, fuel: candidates.length === 1 ? first.fuel : 'unknown', trim: null, colour: null, vin, candidates, decoded_from: 'chassis_number' };
}

function details(v: SampleVehicle): Omit<DecodedVehicle, 'trim' | 'colour' | 'vin' | 'decoded_from'> {
  return { make: v.make, model: v.model, variant: v.variant, body: v.body, fuel: v.fuel, year: v.year, candidates: [{ variant: v.variant, fuel: v.fuel, body: v.body }] };
}

/** The nodes that apply to any of the vehicle's candidate variants (a node applies only if its parent does). */
function treeOf(vehicle: DecodedVehicle): HcaNode[] {
  const kept = new Set<string>();
  const out: HcaNode[] = [];
  for (const n of sample().nodes) {
    if (n.parent_id !== null && !kept.has(n.parent_id)) continue;
    const a = n.applies_to;
    const applies = vehicle.candidates.some((c) => (!a?.fuel || a.fuel.includes(c.fuel)) && (!a?.body || a.body.includes(c.body)));
    if (!applies) continue;
    kept.add(n.hca_id);
    out.push(plainNode(n));
  }
  return out;
}

/** Stable sandbox part numbers (parts only) and images, derived from the vehicle line and the node. */
function enrichmentOf(vehicle: DecodedVehicle, node: HcaNode): Enrichment {
  const digest = (salt: string) => crypto.createHash('sha256').update(`${vehicle.make}|${vehicle.model}|${vehicle.year}|${salt}|${node.hca_id}`).digest('hex');
  const brand = vehicle.make.replace(/[^A-Za-z]/g, '').slice(0, 3).toUpperCase();
  const variants = vehicle.variant === null ? vehicle.candidates.map((c) => c.variant) : [vehicle.variant];
  const part_numbers = node.level === 'part' ? variants.map((v) => `${brand}-${digest(v).slice(0, 3).toUpperCase()}-${digest(`${v}#`).slice(0, 6).toUpperCase()}`) : [];
  return { hca_id: node.hca_id, part_numbers, images: [`https://vehicle-data.sandbox.invalid/hca/${node.hca_id}/${digest('image').slice(0, 12)}.svg`] };
}
