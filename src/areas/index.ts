// Every area of the service: the composition root builds the registry, projections and workers from this list.
import type { Area } from './area.ts';
import { billing } from './billing.ts';
import { identity } from './identity.ts';
import { integrations } from './integrations.ts';
import { jobs } from './jobs.ts';
import { billingConfiguration } from './billing-configuration.ts';
import { assemblies } from './assemblies.ts';
import { ingest } from './ingest.ts';
import { analytics } from './analytics.ts';
import { platform } from './platform.ts';
import { billingWebhooks } from './billing-webhooks.ts';

/** The areas, in the order their projections are prepared. */
export const areas: Area[] = [identity, integrations, jobs, billing, billingConfiguration, assemblies, ingest, analytics, platform, billingWebhooks];

/** Every projection of every area, run by `project` and `start`, replayed by `rebuild`. */
export const projections = areas.flatMap((a) => a.projections);
