// Secrets and ids: recognisable prefixes, checksums, hashes, scrypt passwords, deterministic request ids.
import { expect } from 'chai';
import { hashPassword, hashSecret, looksValid, newSecret, sameHash, verifyPassword } from '../../src/secrets.ts';
import { IdSource } from '../../src/ids.ts';

describe('secrets', () => {
  it('makes prefixed secrets with >= 128 random bits and a checksum that catches typos', () => {
    const a = newSecret('svc_sess_');
    const b = newSecret('svc_sess_');
    expect(a).to.match(/^svc_sess_[0-9A-Za-z]{39}$/);
    expect(a).to.not.equal(b);
    expect(looksValid(a, 'svc_sess_')).to.equal(true);
    expect(looksValid(a, 'svc_key_')).to.equal(false);
    const typo = a.slice(0, 15) + (a[15] === 'x' ? 'y' : 'x') + a.slice(16);
    expect(looksValid(typo, 'svc_sess_')).to.equal(false);
    expect(looksValid('svc_sess_short', 'svc_sess_')).to.equal(false);
  });

  it('stores secrets as SHA-256 and compares hashes in constant time', () => {
    const s = newSecret('svc_key_');
    expect(hashSecret(s)).to.match(/^[0-9a-f]{64}$/);
    expect(sameHash(hashSecret(s), hashSecret(s))).to.equal(true);
    expect(sameHash(hashSecret(s), hashSecret(s + 'x'))).to.equal(false);
    expect(sameHash(hashSecret(s), 'abcd')).to.equal(false);
  });

  it('hashes passwords with scrypt and a salt; verifies only the right one', async () => {
    const h1 = await hashPassword('correct horse');
    const h2 = await hashPassword('correct horse');
    expect(h1).to.match(/^scrypt\$16384\$8\$1\$/);
    expect(h1).to.not.equal(h2);
    expect(await verifyPassword('correct horse', h1)).to.equal(true);
    expect(await verifyPassword('wrong horse', h1)).to.equal(false);
    expect(await verifyPassword('correct horse', 'not-a-hash')).to.equal(false);
  });
});

describe('IdSource', () => {
  it('gives the same UUID v7 sequence for the same seed, and different ones for another seed', () => {
    const a = new IdSource('seed', Date.UTC(2026, 0, 1));
    const b = new IdSource('seed', Date.UTC(2026, 0, 1));
    const ids = [a.next(), a.next()];
    expect([b.next(), b.next()]).to.deep.equal(ids);
    expect(ids[0]).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[0]).to.not.equal(ids[1]);
    expect(new IdSource('other', Date.UTC(2026, 0, 1)).next()).to.not.equal(ids[0]);
    const e1 = a.nextCommand();
    const e2 = b.nextCommand();
    expect(e1('s-1', 0)).to.equal(e2('s-1', 0));
    expect(e1('s-1', 0)).to.not.equal(e1('s-1', 1));
    expect(a.nextCommand()('s-1', 0)).to.not.equal(e1('s-1', 0));
  });
});
