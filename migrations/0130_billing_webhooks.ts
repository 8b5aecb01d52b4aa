// Outbound webhooks (issue 29): the endpoints' read model, the delivery outbox the webhook projection keeps from the log
// (owned by projections/billing/webhook-endpoints.ts and webhook-outbox.ts), and the delivery worker's own state (where each
// endpoint's delivery stands, every attempt): operations state, like checkpoints, not a read model.
import type { Knex } from 'knex';
import { runStatements } from './sql.ts';

export async function up(knex: Knex): Promise<void> {
  await runStatements(knex, `
    create table billing_webhook_endpoints (
      id uuid primary key,
      organization_id uuid,
      doc jsonb not null
    );
    --;
    create index billing_webhook_endpoints_org on billing_webhook_endpoints (organization_id, id);
    --;
    create table billing_webhook_targets (
      id uuid primary key,
      organization_id uuid,
      url text not null,
      event_types jsonb not null,
      enabled boolean not null,
      enabled_at timestamptz not null,
      from_position text not null,
      secrets jsonb not null
    );
    --;
    create table billing_webhook_messages (
      id uuid primary key,
      position text not null,
      organization_id uuid,
      staff_only boolean not null,
      type text not null,
      payload jsonb not null
    );
    --;
    create index billing_webhook_messages_position on billing_webhook_messages (position);
    --;
    create table billing_webhook_redeliveries (
      id uuid primary key,
      endpoint_id uuid not null,
      delivery_id uuid not null,
      event_id uuid not null,
      position text not null
    );
    --;
    create index billing_webhook_redeliveries_endpoint on billing_webhook_redeliveries (endpoint_id, position);
    --;
    create table billing_webhook_feed_facts (
      id uuid primary key,
      currency text,
      finalized boolean not null default false
    );
    --;
    create table webhook_delivery_cursors (
      endpoint_id uuid primary key,
      position text not null,
      failing_since timestamptz,
      next_attempt_at timestamptz,
      lease_owner text,
      lease_until timestamptz
    );
    --;
    create table webhook_deliveries (
      id uuid primary key,
      endpoint_id uuid not null,
      event_id uuid not null,
      webhook_id text not null,
      event_type text not null,
      redelivery boolean not null,
      status text not null,
      next_attempt_at timestamptz,
      created_at timestamptz not null
    );
    --;
    create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id desc);
    --;
    create table webhook_delivery_attempts (
      id uuid primary key,
      delivery_id uuid not null,
      attempted_at timestamptz not null,
      status_code integer,
      latency_ms integer not null,
      response_excerpt text not null,
      ok boolean not null
    );
    --;
    create index webhook_delivery_attempts_delivery on webhook_delivery_attempts (delivery_id, attempted_at desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await runStatements(knex, `
    drop table if exists webhook_delivery_attempts;
    --;
    drop table if exists webhook_deliveries;
    --;
    drop table if exists webhook_delivery_cursors;
    --;
    drop table if exists billing_webhook_feed_facts;
    --;
    drop table if exists billing_webhook_redeliveries;
    --;
    drop table if exists billing_webhook_messages;
    --;
    drop table if exists billing_webhook_targets;
    --;
    drop table if exists billing_webhook_endpoints;
  `);
}
