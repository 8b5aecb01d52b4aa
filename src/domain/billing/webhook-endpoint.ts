// Webhook endpoint aggregate (`webhookendpoint-<id>`): where an organization (or billing staff) wants signed
// deliveries of public events, which types, its signing secret(s), and whether it is enabled.
import crypto from 'node:crypto';
import { z } from 'zod';
import { type Decider, type EventOf, assertNever, eventCodec, eventSchemas } from '../decider.ts';
import { EventId, EventInstant } from '../event-fields.ts';
import { nameId } from '../../ids.ts';
import { billingErrors } from './errors.ts';

/**
 * The public event types an endpoint may ask for: the billing feed's (billing.events.get), plus the completions of
 * vehicle lookups (assemblies search) and catalogue imports. Internal event names never appear here.
 */
export const WEBHOOK_EVENT_TYPES = [
  'customer.created', 'customer.updated', 'customer.removed', 'customer.access_suspended', 'customer.access_restored',
  'invoice.created', 'invoice.updated', 'invoice.finalized', 'invoice.paid', 'invoice.voided', 'invoice.marked_uncollectible', 'invoice.credited',
  'payment.recorded', 'payment.updated', 'payment.voided',
  'credit_note_request.created', 'credit_note_request.updated', 'credit_note_request.approved', 'credit_note_request.rejected', 'credit_note_request.cancelled', 'credit_note_request.issued',
  'lookup.completed', 'import.completed', 'import.failed',
] as const;

/** One public event type an endpoint can subscribe to. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** How long a rotated-out secret still signs (both signatures are sent), so receivers can switch without losing deliveries. */
export const SECRET_OVERLAP_MS = 24 * 3600_000;

/** A new signing secret as Standard Webhooks spells it: `whsec_` + base64 of 32 random bytes (the HMAC key). */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

/** The id of the delivery of one event to one endpoint: the same pair always names the same delivery. */
export function deliveryIdOf(endpointId: string, eventId: string): string {
  return nameId('billing-webhook-delivery', `${endpointId}/${eventId}`);
}

/** Why a URL cannot receive deliveries, or null: https only; plain http to a loopback host where configuration allows it (development, tests). */
export function webhookUrlProblem(raw: string, allowHttpLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  if (url.protocol === 'https:') return null;
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname);
  if (url.protocol === 'http:' && loopback && allowHttpLoopback) return null;
  return allowHttpLoopback ? 'must use https (plain http only to a loopback address)' : 'must use https';
}

const Types = z.array(z.enum(WEBHOOK_EVENT_TYPES));

/** Events of a webhook endpoint stream. */
export const webhookEndpointEvents = eventSchemas({
  WebhookEndpointRegistered: z.object({
    endpoint_id: EventId,
    /** null: a billing staff endpoint, which receives every organization's events (staff-only ones too). */
    organization_id: EventId.nullable(),
    url: z.string(),
    event_types: Types,
    description: z.string(),
    /** The signing secret: kept in the log because signing needs the key itself (HMAC), never shown by a read. */
    secret: z.string(),
    registered_at: EventInstant,
  }),
  WebhookEndpointUpdated: z.object({ url: z.string().optional(), event_types: Types.optional(), description: z.string().optional(), updated_at: EventInstant }),
  WebhookEndpointDisabled: z.object({ reason: z.enum(['manual', 'failing']), detail: z.string(), disabled_at: EventInstant }),
  WebhookEndpointEnabled: z.object({ enabled_at: EventInstant }),
  WebhookEndpointSecretRotated: z.object({ secret: z.string(), previous_valid_until: EventInstant, rotated_at: EventInstant }),
  WebhookEndpointRemoved: z.object({ removed_at: EventInstant }),
  /** Send one earlier delivery again (same webhook-id and body), after what is queued. */
  WebhookRedeliveryRequested: z.object({ redelivery_id: EventId, delivery_id: EventId, event_id: EventId, requested_at: EventInstant }),
});

/** A webhook endpoint event (derived from `webhookEndpointEvents`). */
export type WebhookEndpointEvent = EventOf<typeof webhookEndpointEvents>;

/** How webhook endpoint events are read. */
export const webhookEndpointCodec = eventCodec(webhookEndpointEvents);

/** What may be asked of an endpoint. */
export type WebhookEndpointCommand =
  | { type: 'RegisterEndpoint'; data: { endpoint_id: string; organization_id: string | null; url: string; event_types: WebhookEventType[]; description: string; secret: string; allow_http_loopback: boolean; now: string } }
  | { type: 'UpdateEndpoint'; data: { url?: string; event_types?: WebhookEventType[]; description?: string; allow_http_loopback: boolean; now: string } }
  | { type: 'DisableEndpoint'; data: { reason: 'manual' | 'failing'; detail: string; now: string } }
  | { type: 'EnableEndpoint'; data: { now: string } }
  | { type: 'RotateSecret'; data: { secret: string; now: string } }
  | { type: 'RemoveEndpoint'; data: { now: string } }
  | { type: 'RequestRedelivery'; data: { redelivery_id: string; delivery_id: string; event_id: string; now: string } };

/** An endpoint as its stream says. */
export interface WebhookEndpointState {
  exists: boolean;
  removed: boolean;
  organization_id: string | null;
  url: string;
  event_types: WebhookEventType[];
  description: string;
  enabled: boolean;
}

function checkUrl(url: string, allowHttpLoopback: boolean): void {
  const problem = webhookUrlProblem(url, allowHttpLoopback);
  if (problem) throw billingErrors.error('invalid_webhook_url', `url ${problem}.`, { issues: [{ path: 'url', message: problem }] });
}

function live(state: WebhookEndpointState): void {
  if (!state.exists || state.removed) throw billingErrors.error('webhook_endpoint_not_found', 'No such webhook endpoint.');
}

const sameTypes = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((t, i) => t === b[i]);
const sorted = (types: WebhookEventType[]) => [...new Set(types)].sort();

/** Pure endpoint decider: disabling a disabled endpoint, enabling an enabled one or an update that changes nothing records nothing. */
export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointState> = {
  events: webhookEndpointCodec,
  initialState: () => ({ exists: false, removed: false, organization_id: null, url: '', event_types: [], description: '', enabled: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookEndpointRegistered':
        return { exists: true, removed: false, organization_id: event.data.organization_id, url: event.data.url, event_types: event.data.event_types, description: event.data.description, enabled: true };
      case 'WebhookEndpointUpdated':
        return { ...state, url: event.data.url ?? state.url, event_types: event.data.event_types ?? state.event_types, description: event.data.description ?? state.description };
      case 'WebhookEndpointDisabled':
        return { ...state, enabled: false };
      case 'WebhookEndpointEnabled':
        return { ...state, enabled: true };
      case 'WebhookEndpointRemoved':
        return { ...state, removed: true, enabled: false };
      case 'WebhookEndpointSecretRotated':
      case 'WebhookRedeliveryRequested':
        return state;
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RegisterEndpoint': {
        const d = command.data;
        if (state.exists) throw billingErrors.error('webhook_endpoint_exists', 'That webhook endpoint id is taken.');
        checkUrl(d.url, d.allow_http_loopback);
        return [{ type: 'WebhookEndpointRegistered', data: { endpoint_id: d.endpoint_id, organization_id: d.organization_id, url: d.url, event_types: sorted(d.event_types), description: d.description, secret: d.secret, registered_at: d.now } }];
      }
      case 'UpdateEndpoint': {
        live(state);
        const d = command.data;
        if (d.url !== undefined) checkUrl(d.url, d.allow_http_loopback);
        const types = d.event_types === undefined ? undefined : sorted(d.event_types);
        const changes = {
          ...(d.url !== undefined && d.url !== state.url ? { url: d.url } : {}),
          ...(types !== undefined && !sameTypes(types, state.event_types) ? { event_types: types } : {}),
          ...(d.description !== undefined && d.description !== state.description ? { description: d.description } : {}),
        };
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'WebhookEndpointUpdated', data: { ...changes, updated_at: d.now } }];
      }
      case 'DisableEndpoint':
        live(state);
        if (!state.enabled) return [];
        return [{ type: 'WebhookEndpointDisabled', data: { reason: command.data.reason, detail: command.data.detail, disabled_at: command.data.now } }];
      case 'EnableEndpoint':
        live(state);
        if (state.enabled) return [];
        return [{ type: 'WebhookEndpointEnabled', data: { enabled_at: command.data.now } }];
      case 'RotateSecret':
        live(state);
        return [{ type: 'WebhookEndpointSecretRotated', data: { secret: command.data.secret, previous_valid_until: new Date(Date.parse(command.data.now) + SECRET_OVERLAP_MS).toISOString(), rotated_at: command.data.now } }];
      case 'RemoveEndpoint':
        live(state);
        return [{ type: 'WebhookEndpointRemoved', data: { removed_at: command.data.now } }];
      case 'RequestRedelivery': {
        live(state);
        const { now, ...d } = command.data;
        return [{ type: 'WebhookRedeliveryRequested', data: { ...d, requested_at: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
