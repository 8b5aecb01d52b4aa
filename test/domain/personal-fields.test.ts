// Issue 32: every personal-looking text field of every stored event is either marked personal (encrypted with its
// subject's key) or listed here as not personal, with why. A new field named email, name, address, text, body,
// filename or referer fails this test until someone decides.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import type { z } from 'zod';
import { PERSONAL_FIELDS } from '../../src/domain/personal-events.ts';

const DOMAIN = path.resolve(import.meta.dirname, '../../src/domain');
const LOOKS_PERSONAL = /(^|_)(email|name|address|line1|line2|city|postal_code|region|text|body|filename|referer|referrer|password|phone)$|^(to|recipient)$/;

/** Fields that look personal and are not, each with the reason (docs/decisions.md, issue 32). */
const NOT_PERSONAL: Record<string, string> = {
  'OrganizationCreated.name': 'an organization (a business) is not a data subject; its billing customer holds the legal name',
  'SiteAdded.name': 'a business site',
  'ProductCreated.name': 'catalogue', 'ProductUpdated.changes.name': 'catalogue',
  'EntitlementDefined.name': 'catalogue', 'EntitlementUpdated.name': 'catalogue',
  'IntegrationClientRegistered.name': 'a third-party application',
  'AnalyticsEventRecorded.name': 'the name of the logged event (page_view)',
  'AssemblyTreeReady.vehicle.body': 'vehicle body style', 'AssemblyTreeReady.vehicle.candidates.body': 'vehicle body style', 'AssemblyTreeReady.tree.name': 'a part name',
  'EntitlementChanged.changes.name': 'catalogue',
  'PaymentMethodSetupSucceeded.method.bank_name': 'the name of a bank, not of a person',
};

function stringFields(personalMark: (s: z.ZodType) => unknown, schema: z.ZodType, at: string): { path: string; marked: boolean }[] {
  if (personalMark(schema)) return [{ path: at, marked: true }];
  const def = schema.def as { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; element?: z.ZodType; in?: z.ZodType; options?: z.ZodType[] };
  if (def.type === 'string') return [{ path: at, marked: false }];
  if (['optional', 'nullable', 'default', 'readonly'].includes(def.type) && def.innerType) return stringFields(personalMark, def.innerType, at);
  if (def.type === 'pipe' && def.in) return stringFields(personalMark, def.in, at);
  if (def.type === 'array' && def.element) return stringFields(personalMark, def.element, at);
  if (def.type === 'object' && def.shape) return Object.entries(def.shape).flatMap(([k, s]) => stringFields(personalMark, s, at ? `${at}.${k}` : k));
  return [];
}

async function codecs(): Promise<{ schemas: Record<string, z.ZodType> }[]> {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith('.ts')) files.push(path.join(d, e.name));
    }
  };
  walk(DOMAIN);
  const found: { schemas: Record<string, z.ZodType> }[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(f).href)) as Record<string, unknown>;
    for (const v of Object.values(mod)) if (v && typeof v === 'object' && 'schemas' in v && 'upcasters' in v && 'memo' in v) found.push(v as { schemas: Record<string, z.ZodType> });
  }
  return found;
}

describe('personal fields of events (issue 32)', () => {
  it('marks every personal-looking text field of every event, or lists it as not personal', async () => {
    const undecided: string[] = [];
    const all = await codecs();
    // The marks' registry as the dynamically imported schemas see it (the same module URL).
    const { personalPaths } = (await import(pathToFileURL(path.join(DOMAIN, 'personal.ts')).href)) as typeof import('../../src/domain/personal.ts');
    const personalMark = (s: z.ZodType) => personalPaths(s).some((p) => p.path.length === 0);
    expect(all.length).to.be.greaterThan(25);
    for (const codec of all) {
      for (const [type, schema] of Object.entries(codec.schemas)) {
        for (const f of stringFields(personalMark, schema, '')) {
          const leaf = f.path.split('.').pop() ?? '';
          if (!f.marked && LOOKS_PERSONAL.test(leaf) && !Object.hasOwn(NOT_PERSONAL, `${type}.${f.path}`)) undecided.push(`${type}.${f.path}`);
        }
      }
    }
    expect(undecided).to.deep.equal([]);
  });

  it('encrypts the customer\'s, user\'s, note\'s, attachment\'s and analytics\' personal fields, with the invoice details on the retention key', () => {
    const paths = (type: string) => (PERSONAL_FIELDS.get(type) ?? []).map((p) => `${p.path.join('.')}${p.retained ? ' (retained)' : ''}`);
    expect(paths('CustomerCreated')).to.include.members(['email', 'name (retained)', 'tax_id (retained)', 'billing_address.line1 (retained)']);
    expect(paths('CustomerUpdated')).to.include.members(['changes.email', 'changes.name (retained)']);
    expect(paths('UserRegistered')).to.have.members(['email', 'name']);
    expect(paths('EmailClaimed')).to.have.members(['email']);
    expect(paths('NoteEdited')).to.have.members(['body', 'previous_body']);
    expect(paths('AttachmentPrepared')).to.have.members(['filename']);
    expect(paths('AnalyticsEventRecorded')).to.have.members(['referer']);
    expect(paths('MessageDecided')).to.have.members(['to']);
    expect(paths('MessageDelivered')).to.have.members(['response']);
    expect(paths('MessageDeliveryFailed')).to.have.members(['error']);
  });
});
