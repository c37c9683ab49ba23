import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppConfig, MIN_SESSION_SECRET_LENGTH } from '../config/app-config';
import { KEY_BYTES, parseKey } from '../config/encryption-key';
import { DEVELOPMENT_KEY_FILE } from '../config/secret-box';
import { readOrCreateSecretFile } from '../config/secret-file';
import { withMigratedDataSource } from './database.module';

/** Beside the embedded database: the session secret a development start made. */
export const DEVELOPMENT_SESSION_SECRET_FILE = 'session.secret';

/**
 * The settings with the secrets a development start needs and was not given (SESSION_SECRET,
 * ENCRYPTION_KEY), kept where every instance on the same data finds them: beside the embedded
 * database (DATA_DIR/session.secret; DATA_DIR/encryption.key is SecretBox's), or in the database
 * itself (`development_secrets`) when DATABASE_URL is set. Made per process, they logged everyone
 * out and broke every media link at each restart, and two instances on one database could not
 * read each other's webhook secrets. Production refuses to start without them (see loadConfig).
 */
export async function withDevelopmentSecrets(config: AppConfig, warn: (message: string) => void): Promise<AppConfig> {
  const needsSession = config.sessionSecretGenerated;
  const needsKey = config.encryptionKey === null;
  if (config.isProduction || (!needsSession && !needsKey)) return config;
  if (!config.databaseUrl) {
    if (!needsSession) return config;
    const file = join(resolve(config.dataDir), DEVELOPMENT_SESSION_SECRET_FILE);
    warn(
      `SESSION_SECRET is not set: a development one kept in ${file} signs tokens and media links. Set SESSION_SECRET for any real deployment.`,
    );
    return withSecrets(config, { sessionSecret: sessionSecretFrom(readOrCreateSecretFile(file, newSessionSecret), file) });
  }
  // A key this data directory already had (before the database kept one) stays the key: what it encrypted stays readable.
  const fileKey = needsKey ? existingKeyFile(config) : null;
  const stored = await withMigratedDataSource(config, async (dataSource) => {
    // Of instances starting together, the first insert wins and every one reads what it wrote.
    await dataSource.query(
      `INSERT INTO development_secrets (name, value) VALUES ('session_secret', $1), ('encryption_key', $2) ON CONFLICT (name) DO NOTHING`,
      [newSessionSecret(), fileKey ?? randomBytes(KEY_BYTES).toString('base64')],
    );
    const rows: { name: string; value: string }[] = await dataSource.query('SELECT name, value FROM development_secrets');
    return new Map(rows.map((row) => [row.name, row.value]));
  });
  const unset = [needsSession && 'SESSION_SECRET', needsKey && 'ENCRYPTION_KEY'].filter(Boolean).join(' and ');
  warn(
    `${unset} ${needsSession && needsKey ? 'are' : 'is'} not set: development values kept in this database (table development_secrets) are used, ` +
      'so every instance on it shares them. Set them for any real deployment: a key kept beside the data it encrypts protects nothing.',
  );
  const key = parseKey(stored.get('encryption_key') ?? '');
  if (needsKey && !key) throw new Error('The development encryption key in development_secrets is not a 32-byte key in base64');
  return withSecrets(config, {
    ...(needsSession ? { sessionSecret: sessionSecretFrom(stored.get('session_secret') ?? '', 'the table development_secrets') } : {}),
    ...(needsKey ? { encryptionKey: key } : {}),
  });
}

function withSecrets(config: AppConfig, secrets: Partial<Pick<AppConfig, 'sessionSecret' | 'encryptionKey'>>): AppConfig {
  return Object.freeze(Object.assign(new AppConfig(), config, secrets));
}

const newSessionSecret = () => randomBytes(32).toString('base64url');

/** A kept secret too short to sign with (an emptied file, an edited row) stops the start: tokens signed with it could be forged. */
function sessionSecretFrom(stored: string, where: string): string {
  if (stored.length < MIN_SESSION_SECRET_LENGTH)
    throw new Error(
      `The development session secret in ${where} is shorter than ${MIN_SESSION_SECRET_LENGTH} characters: remove it for a new one`,
    );
  return stored;
}

function existingKeyFile(config: AppConfig): string | null {
  try {
    const text = readFileSync(join(resolve(config.dataDir), DEVELOPMENT_KEY_FILE), 'utf8').trim();
    return parseKey(text) ? text : null;
  } catch {
    return null;
  }
}
