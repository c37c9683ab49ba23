/**
 * Which real services this test run may use. Unset TEST_DATABASE_URL means embedded PGlite;
 * unset TEST_REDIS_URL means the in-process queue and rate limits.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || null;
export const TEST_RUN_ID = process.env.TEST_RUN_ID ?? 'local';
/** PGlite data directories made once per run (global setup): initialised only, and with every migration applied. */
export const PGLITE_TEMPLATE_DIR = process.env.TEST_PGLITE_TEMPLATE_DIR ?? '';
export const PGLITE_MIGRATED_TEMPLATE_DIR = process.env.TEST_PGLITE_MIGRATED_TEMPLATE_DIR ?? '';

/** Name prefix of every database and Redis key this run creates, so teardown can find leftovers. */
export const RUN_PREFIX = `ti_test_${TEST_RUN_ID}`;
/** The PostgreSQL database with every migration applied (global setup) that test databases are copies of. */
export const MIGRATED_TEMPLATE_DATABASE = `${RUN_PREFIX}_template`;

/** `describe` for specs that need a real PostgreSQL server; says so in the test name when skipped. */
export const describeWithPostgres = TEST_DATABASE_URL ? describe : describe.skip;
/** `describe` for specs that need PostgreSQL and Redis together (several instances sharing state). */
export const describeWithPostgresAndRedis = TEST_DATABASE_URL && TEST_REDIS_URL ? describe : describe.skip;
/** `describe` for specs about the embedded database itself. */
export const describeWithPglite = TEST_DATABASE_URL ? describe.skip : describe;
