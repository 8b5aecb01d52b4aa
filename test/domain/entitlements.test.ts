// Entitlement deciders (entitlement, product grants, overrides, subscriptions) and the effective-entitlements rule.
import { expect } from 'chai';
import { effectiveEntitlements, entitlementDecider, type EntitlementEvent } from '../../src/domain/billing/entitlement.ts';
import { overrideDecider, type OverrideCommand, type OverrideEvent } from '../../src/domain/billing/entitlement-override.ts';
import { productDecider, type ProductEvent } from '../../src/domain/billing/product.ts';
import { subscriptionDecider, type SubscriptionCommand, type SubscriptionEvent } from '../../src/domain/billing/subscription.ts';
import { given } from './given.ts';

const ORG = '0190c6a2-0000-7000-8000-0000000000a1';
const PRODUCT = '0190c6a2-0000-7000-8000-0000000000e1';
const PRICE = '0190c6a2-0000-7000-8000-0000000000e2';
const SUB = '0190c6a2-0000-7000-8000-0000000000e3';
const OVERRIDE = '0190c6a2-0000-7000-8000-0000000000e4';
const T0 = '2026-01-15T09:00:00.000Z';
const T1 = '2026-01-16T09:00:00.000Z';
const LATER = '2026-02-15T09:00:00.000Z';

describe('entitlement decider', () => {
  const defined: EntitlementEvent = { type: 'EntitlementDefined', data: { key: 'parts.search', name: 'Parts search', description: null, defined_at: T0 } };
  const upsert = (name: string, description: string | null = null) => ({ type: 'UpsertEntitlement' as const, data: { key: 'parts.search', name, description, now: T1 } });

  it('upserts by key: defines once, records only real changes, the same values twice is nothing', () => {
    given(entitlementDecider, []).when({ ...upsert('Parts search'), data: { ...upsert('Parts search').data, now: T0 } }).then([defined]);
    given(entitlementDecider, [defined]).when(upsert('Parts search')).thenNothing();
    given(entitlementDecider, [defined]).when(upsert('Search', 'Find parts')).then([{ type: 'EntitlementChanged', data: { changes: { name: 'Search', description: 'Find parts' }, updated_at: T1 } }]);
  });
});

describe('product entitlements', () => {
  const created: ProductEvent = { type: 'ProductCreated', data: { product_id: PRODUCT, name: 'Pro', description: null, active: true, metadata: {}, created_at: T0 } };
  const added: ProductEvent = { type: 'ProductEntitlementAdded', data: { entitlement_key: 'parts.search', added_at: T1 } };
  const add = (entitlement_exists = true) => ({ type: 'AddProductEntitlement' as const, data: { entitlement_key: 'parts.search', entitlement_exists, now: T1 } });

  it('relates an existing entitlement once; relating it again is nothing', () => {
    given(productDecider, [created]).when(add()).then([added]);
    given(productDecider, [created, added]).when(add()).thenNothing();
    given(productDecider, [created]).when(add(false)).thenError('entitlement_not_found');
    given(productDecider, []).when(add()).thenError('product_not_found');
  });

  it('removes a relation that exists; otherwise product_entitlement_not_found', () => {
    const remove = { type: 'RemoveProductEntitlement' as const, data: { entitlement_key: 'parts.search', now: T1 } };
    given(productDecider, [created, added]).when(remove).then([{ type: 'ProductEntitlementRemoved', data: { entitlement_key: 'parts.search', removed_at: T1 } }]);
    given(productDecider, [created]).when(remove).thenError('product_entitlement_not_found');
  });
});

describe('entitlement override decider', () => {
  type SetData = Extract<OverrideCommand, { type: 'SetOverride' }>['data'];
  const base: SetData = { override_id: OVERRIDE, organization_id: ORG, entitlement_key: 'parts.search', mode: 'grant', expires_at: null, reason: 'Trial', organization_exists: true, entitlement_exists: true, now: T0 };
  const set = (over: Partial<SetData> = {}): OverrideCommand => ({ type: 'SetOverride', data: { ...base, ...over } });
  const granted: OverrideEvent = { type: 'EntitlementOverrideSet', data: { override_id: OVERRIDE, organization_id: ORG, entitlement_key: 'parts.search', mode: 'grant', expires_at: null, reason: 'Trial', set_at: T0 } };

  it('upserts: the same override twice is nothing; a different one replaces it', () => {
    given(overrideDecider, []).when(set()).then([granted]);
    given(overrideDecider, [granted]).when(set({ now: T1 })).thenNothing();
    given(overrideDecider, [granted]).when(set({ mode: 'revoke', reason: 'Abuse', now: T1 }))
      .then([{ type: 'EntitlementOverrideSet', data: { ...granted.data, mode: 'revoke', reason: 'Abuse', set_at: T1 } }]);
  });

  it('refuses an unknown organization or entitlement and an expiry not in the future', () => {
    given(overrideDecider, []).when(set({ organization_exists: false })).thenError('organization_not_found');
    given(overrideDecider, []).when(set({ entitlement_exists: false })).thenError('entitlement_not_found');
    given(overrideDecider, []).when(set({ expires_at: T0 })).thenError('invalid_override');
  });

  it('removes an override in place only', () => {
    given(overrideDecider, [granted]).when({ type: 'RemoveOverride', data: { now: T1 } }).then([{ type: 'EntitlementOverrideRemoved', data: { removed_at: T1 } }]);
    given(overrideDecider, []).when({ type: 'RemoveOverride', data: { now: T1 } }).thenError('entitlement_override_not_found');
  });
});

describe('subscription decider', () => {
  type CreateData = Extract<SubscriptionCommand, { type: 'CreateSubscription' }>['data'];
  const base: CreateData = {
    subscription_id: SUB, organization_id: ORG, items: [{ price_id: PRICE, quantity: 2 }], status: 'active',
    current_period_start: T0, current_period_end: LATER, organization_exists: true, prices: { [PRICE]: 'active' }, now: T0,
  };
  const create = (over: Partial<CreateData> = {}): SubscriptionCommand => ({ type: 'CreateSubscription', data: { ...base, ...over } });
  const created: SubscriptionEvent = {
    type: 'SubscriptionCreated',
    data: { subscription_id: SUB, organization_id: ORG, items: [{ price_id: PRICE, quantity: 2 }], status: 'active', current_period_start: T0, current_period_end: LATER, created_at: T0 },
  };

  it('creates a subscription to active prices for an existing organization', () => {
    given(subscriptionDecider, []).when(create()).then([created]);
    given(subscriptionDecider, [created]).when(create()).thenError('subscription_exists');
  });

  it('refuses bad items, unknown or archived prices, unknown organizations and backwards periods', () => {
    given(subscriptionDecider, []).when(create({ organization_exists: false })).thenError('organization_not_found');
    given(subscriptionDecider, []).when(create({ items: [] })).thenError('invalid_subscription');
    given(subscriptionDecider, []).when(create({ items: [{ price_id: PRICE, quantity: -1 }] })).thenError('invalid_quantity');
    given(subscriptionDecider, []).when(create({ items: [{ price_id: PRICE, quantity: 0 }] })).thenError('invalid_quantity');
    given(subscriptionDecider, []).when(create({ items: [{ price_id: PRICE, quantity: 1 }, { price_id: PRICE, quantity: 1 }] })).thenError('invalid_subscription');
    given(subscriptionDecider, []).when(create({ prices: { [PRICE]: 'none' } })).thenError('price_not_found');
    given(subscriptionDecider, []).when(create({ prices: { [PRICE]: 'archived' } })).thenError('price_inactive');
    given(subscriptionDecider, []).when(create({ current_period_end: T0 })).thenError('invalid_subscription');
  });

  it('updates record real changes; canceled is final', () => {
    const cancel: SubscriptionCommand = { type: 'UpdateSubscription', data: { changes: { status: 'canceled' }, prices: {}, now: T1 } };
    const canceled: SubscriptionEvent = { type: 'SubscriptionUpdated', data: { changes: { status: 'canceled' }, updated_at: T1 } };
    given(subscriptionDecider, [created]).when(cancel).then([canceled]);
    given(subscriptionDecider, [created]).when({ type: 'UpdateSubscription', data: { changes: { status: 'active' }, prices: {}, now: T1 } }).thenNothing();
    given(subscriptionDecider, [created, canceled]).when(cancel).thenError('subscription_canceled');
    given(subscriptionDecider, [created]).when({ type: 'UpdateSubscription', data: { changes: { items: [{ price_id: PRICE, quantity: -3 }] }, prices: { [PRICE]: 'active' }, now: T1 } }).thenError('invalid_quantity');
    given(subscriptionDecider, []).when(cancel).thenError('subscription_not_found');
  });
});

describe('effective entitlements rule', () => {
  const keys = ['a', 'b', 'c', 'd'];
  const productGrants = [{ product_id: PRODUCT, entitlement_keys: ['a', 'b'] }];
  const now = T1;

  it('products grant, grants add, revokes remove; each key says why', () => {
    const out = effectiveEntitlements({ keys, productGrants, overrides: [{ entitlement_key: 'b', mode: 'revoke', expires_at: null }, { entitlement_key: 'c', mode: 'grant', expires_at: LATER }], suspended: false, now });
    expect(out.map((e) => [e.key, e.enabled, e.reason])).to.deep.equal([['a', true, 'product'], ['b', false, 'revoked'], ['c', true, 'granted'], ['d', false, 'not_granted']]);
    expect(out[0]?.products).to.deep.equal([PRODUCT]);
  });

  it('expired overrides are ignored', () => {
    const out = effectiveEntitlements({ keys, productGrants, overrides: [{ entitlement_key: 'b', mode: 'revoke', expires_at: T1 }, { entitlement_key: 'c', mode: 'grant', expires_at: T0 }], suspended: false, now });
    expect(out.map((e) => [e.key, e.enabled, e.reason, e.override])).to.deep.equal([['a', true, 'product', null], ['b', true, 'product', null], ['c', false, 'not_granted', null], ['d', false, 'not_granted', null]]);
  });

  it('nothing is on while suspended', () => {
    const out = effectiveEntitlements({ keys, productGrants, overrides: [{ entitlement_key: 'c', mode: 'grant', expires_at: null }], suspended: true, now });
    expect(out.every((e) => !e.enabled && e.reason === 'suspended')).to.equal(true);
  });
});
