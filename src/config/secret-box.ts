import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { AppConfig } from './app-config';
import { KEY_BYTES, keyIdOf, parseKey } from './encryption-key';
import { readOrCreateSecretFile } from './secret-file';

const PREFIX = 'enc:v1:';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored value that cannot be decrypted; the message ("it was encrypted with key …") names the key id, never the value or a key. */
export class SecretUnreadableError extends Error {
  constructor(
    message: string,
    /** The key id the value says it was encrypted with; null when the value is malformed. */
    readonly keyId: string | null,
  ) {
    super(message);
    this.name = 'SecretUnreadableError';
  }
}

/**
 * Encryption at rest for secrets kept in the database (webhook secrets): AES-256-GCM, a random
 * 96-bit IV per value, the tag stored, as `enc:v1:<key id>:<iv>:<tag>:<ciphertext>` (base64).
 * `seal` always uses the current key (ENCRYPTION_KEY); `open` also reads values written under an
 * older key (ENCRYPTION_KEY_PREVIOUS), found by the key id, so keys can be rotated, and reads a
 * value without the prefix as the plain text stored before encryption existed. Provided by
 * ConfigModule (see `secretBoxFor`); inject it by its class.
 */
export class SecretBox {
  readonly currentKeyId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(
    private readonly current: Buffer,
    previous: readonly Buffer[] = [],
  ) {
    for (const key of [current, ...previous]) {
      if (key.length !== KEY_BYTES) throw new Error(`An encryption key must have ${KEY_BYTES} bytes`);
    }
    this.currentKeyId = keyIdOf(current);
    this.keys.set(this.currentKeyId, current);
    for (const key of previous) if (!this.keys.has(keyIdOf(key))) this.keys.set(keyIdOf(key), key);
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.current, iv, { authTagLength: TAG_BYTES });
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.currentKeyId}:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${ciphertext.toString('base64')}`;
  }

  /** The plain text; throws SecretUnreadableError when the key is unknown or the value was altered. */
  open(stored: string): string {
    if (!isSealed(stored)) return stored;
    const parts = stored.slice(PREFIX.length).split(':');
    if (parts.length !== 4) throw new SecretUnreadableError('it is malformed', null);
    const [keyId, iv, tag, ciphertext] = parts;
    const key = this.keys.get(keyId);
    if (!key) {
      throw new SecretUnreadableError(
        `it was encrypted with key ${keyId}, which is neither ENCRYPTION_KEY (${this.currentKeyId}) nor in ENCRYPTION_KEY_PREVIOUS`,
        keyId,
      );
    }
    try {
      if (Buffer.from(iv, 'base64').length !== IV_BYTES) throw new Error('wrong IV length');
      const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64'), { authTagLength: TAG_BYTES });
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(`it fails the integrity check of key ${keyId} (altered)`, keyId);
    }
  }

  /** Whether a stored value is encrypted with the current key; anything else is rewritten by `reseal`. */
  isCurrent(stored: string): boolean {
    return stored.startsWith(this.currentPrefix);
  }

  /** The value encrypted with the current key (plain text or an older key's value read first). */
  reseal(stored: string): string {
    return this.isCurrent(stored) ? stored : this.seal(this.open(stored));
  }

  /** What every value encrypted with the current key starts with, for a query of the others. */
  get currentPrefix(): string {
    return `${PREFIX}${this.currentKeyId}:`;
  }
}

/** Whether a stored value is in the encrypted format (any key); otherwise it is plain text from before encryption. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** Where the development key is kept when ENCRYPTION_KEY is unset (never in production). */
export const DEVELOPMENT_KEY_FILE = 'encryption.key';

/**
 * The SecretBox of the settings: ENCRYPTION_KEY and ENCRYPTION_KEY_PREVIOUS. Without
 * ENCRYPTION_KEY (refused in production) the key is read from `DATA_DIR/encryption.key`, created
 * once with a random key (mode 0600): a key generated per process would make the stored secrets
 * unreadable after a restart. `warn` is told so, with the file's path, never the key.
 */
export function secretBoxFor(config: AppConfig, warn: (message: string) => void): SecretBox {
  if (config.encryptionKey) return new SecretBox(config.encryptionKey, config.encryptionKeysPrevious);
  if (config.isProduction) throw new Error('ENCRYPTION_KEY: must be set in production');
  const file = join(resolve(config.dataDir), DEVELOPMENT_KEY_FILE);
  const key = readOrCreateKey(file);
  warn(
    `ENCRYPTION_KEY is not set: secrets stored in the database are encrypted with a development key kept in ${file}. ` +
      "Set ENCRYPTION_KEY (openssl rand -base64 32) for any real deployment, with this file's content in ENCRYPTION_KEY_PREVIOUS to keep reading what it encrypted.",
  );
  return new SecretBox(key, config.encryptionKeysPrevious);
}

function readOrCreateKey(file: string): Buffer {
  const key = parseKey(readOrCreateSecretFile(file, () => randomBytes(KEY_BYTES).toString('base64')));
  if (!key) throw new Error(`${file} does not hold a 32-byte key in base64: remove it (secrets it encrypted are lost) or fix it`);
  return key;
}
