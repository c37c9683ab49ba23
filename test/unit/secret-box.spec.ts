import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/app-config';
import { keyIdOf, parseKey } from '../../src/config/encryption-key';
import { isSealed, SecretBox, secretBoxFor, SecretUnreadableError } from '../../src/config/secret-box';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);
const SECRET = 'a-receiver-secret-of-some-length';

describe('SecretBox', () => {
  it('round-trips a value, which is stored in the versioned format and never as the plain text', () => {
    const box = new SecretBox(NEW);
    const sealed = box.seal(SECRET);
    expect(sealed).toMatch(new RegExp(`^enc:v1:${keyIdOf(NEW)}:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$`));
    expect(sealed).not.toContain(SECRET);
    expect(isSealed(sealed)).toBe(true);
    expect(box.open(sealed)).toBe(SECRET);
    expect(box.open(box.seal(''))).toBe('');
    expect(box.open(box.seal('ünïcødé ✓'))).toBe('ünïcødé ✓');
  });

  it('uses a new IV for every value', () => {
    const box = new SecretBox(NEW);
    expect(box.seal(SECRET)).not.toBe(box.seal(SECRET));
  });

  it('refuses a value of a key it does not have, naming the key ids and nothing else', () => {
    const sealed = new SecretBox(OLD).seal(SECRET);
    const open = () => new SecretBox(NEW).open(sealed);
    expect(open).toThrow(SecretUnreadableError);
    expect(open).toThrow(
      `it was encrypted with key ${keyIdOf(OLD)}, which is neither ENCRYPTION_KEY (${keyIdOf(NEW)}) nor in ENCRYPTION_KEY_PREVIOUS`,
    );
  });

  it('refuses an altered ciphertext, tag or IV', () => {
    const box = new SecretBox(NEW);
    const [prefix, version, keyId, iv, tag, ciphertext] = box.seal(SECRET).split(':');
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[0] ^= 1;
      return bytes.toString('base64');
    };
    for (const altered of [
      [prefix, version, keyId, iv, tag, flip(ciphertext)],
      [prefix, version, keyId, iv, flip(tag), ciphertext],
      [prefix, version, keyId, flip(iv), tag, ciphertext],
      [prefix, version, keyId, iv, tag.slice(0, 8), ciphertext],
      [prefix, version, keyId, iv, tag],
    ]) {
      expect(() => box.open(altered.join(':'))).toThrow(SecretUnreadableError);
    }
  });

  it('reads a previous key’s value and rewrites it with the current key', () => {
    const sealedWithOld = new SecretBox(OLD).seal(SECRET);
    const box = new SecretBox(NEW, [OLD]);
    expect(box.open(sealedWithOld)).toBe(SECRET);
    expect(box.isCurrent(sealedWithOld)).toBe(false);
    const resealed = box.reseal(sealedWithOld);
    expect(resealed.startsWith(box.currentPrefix)).toBe(true);
    expect(box.isCurrent(resealed)).toBe(true);
    expect(new SecretBox(NEW).open(resealed)).toBe(SECRET);
    expect(box.reseal(resealed)).toBe(resealed);
  });

  it('reads plain text stored before encryption as it is, and encrypts it on reseal', () => {
    const box = new SecretBox(NEW);
    expect(isSealed(SECRET)).toBe(false);
    expect(box.open(SECRET)).toBe(SECRET);
    const resealed = box.reseal(SECRET);
    expect(box.isCurrent(resealed)).toBe(true);
    expect(box.open(resealed)).toBe(SECRET);
  });
});

describe('parseKey', () => {
  it('reads 32 bytes in base64, base64url or hex', () => {
    expect(parseKey(NEW.toString('base64'))).toEqual(NEW);
    expect(parseKey(Buffer.alloc(32, 255).toString('base64url'))).toEqual(Buffer.alloc(32, 255));
    expect(parseKey(NEW.toString('hex'))).toEqual(NEW);
  });

  it.each([
    ['short', Buffer.alloc(16).toString('base64')],
    ['long', Buffer.alloc(48, 200).toString('base64')],
    ['not base64', 'a passphrase of words!'],
    ['empty', ''],
  ])('refuses a %s key', (_, text) => {
    expect(parseKey(text)).toBeNull();
  });
});

describe('secretBoxFor', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'team-inbox-key-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('uses ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS, writing no file', () => {
    const config = loadConfig(
      { DATA_DIR: dataDir, ENCRYPTION_KEY: NEW.toString('base64'), ENCRYPTION_KEY_PREVIOUS: `${OLD.toString('hex')}` },
      () => 'x',
    );
    const warnings: string[] = [];
    const box = secretBoxFor(config, (message) => warnings.push(message));
    expect(box.currentKeyId).toBe(keyIdOf(NEW));
    expect(box.open(new SecretBox(OLD).seal(SECRET))).toBe(SECRET);
    expect(warnings).toEqual([]);
    expect(() => statSync(join(dataDir, 'encryption.key'))).toThrow();
  });

  it('outside production without ENCRYPTION_KEY, keeps one development key in DATA_DIR across restarts, with a warning', () => {
    const config = loadConfig({ DATA_DIR: join(dataDir, 'nested') }, () => 'x');
    const warnings: string[] = [];
    const first = secretBoxFor(config, (message) => warnings.push(message));
    const file = join(dataDir, 'nested', 'encryption.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = secretBoxFor(config, (message) => warnings.push(message));
    expect(second.open(first.seal(SECRET))).toBe(SECRET);
    expect(first.currentKeyId).toBe(keyIdOf(parseKey(readFileSync(file, 'utf8').trim())!));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('ENCRYPTION_KEY is not set');
    expect(warnings[0]).toContain(file);
    expect(warnings[0]).not.toContain(readFileSync(file, 'utf8').trim());
  });
});
