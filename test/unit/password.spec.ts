import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../../src/users/password';

describe('password hashing', () => {
  it('verifies the password it hashed and refuses another', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
  });

  it('stores scrypt with its parameters and a fresh salt each time', async () => {
    const [a, b] = await Promise.all([hashPassword('same'), hashPassword('same')]);
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
  });

  it('stores the cost it is given (PASSWORD_HASH_COST) in the hash, and verifies by it', async () => {
    const hash = await hashPassword('cheaper', 10);
    expect(hash).toMatch(/^scrypt\$1024\$8\$3\$/);
    expect(await verifyPassword('cheaper', hash)).toBe(true);
    expect(decoyPasswordHash(10)).toMatch(/^scrypt\$1024\$/);
  });

  it('treats a canonically equivalent Unicode password as the same', async () => {
    const hash = await hashPassword('caf\u00e9-password');
    expect(await verifyPassword('cafe\u0301-password', hash)).toBe(true);
  });

  it('refuses every password against the decoy and a malformed hash', async () => {
    expect(await verifyPassword('', decoyPasswordHash())).toBe(false);
    expect(await verifyPassword('anything', 'plain-text')).toBe(false);
  });

  it('asks for a new hash when the stored one is weaker than the cost or has fewer than 3 lanes, and not otherwise', async () => {
    const today = await hashPassword('same', 10);
    expect(needsRehash(today, 10)).toBe(false);
    expect(needsRehash(today, 11)).toBe(true);
    expect(needsRehash(today.replace('$8$3$', '$8$1$'), 10)).toBe(true);
    expect(needsRehash('bcrypt$whatever', 10)).toBe(true);
  });
});
