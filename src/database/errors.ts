import { DatabaseError } from 'pg';
import { CannotExecuteNotConnectedError, QueryFailedError } from 'typeorm';

/** True when a statement failed on a unique index (SQLSTATE 23505), optionally a named one. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && (constraint === undefined || driverError.constraint === constraint);
}

/**
 * True when a statement failed on a foreign key: a row still points at the one being deleted.
 * PostgreSQL 15 reports an ON DELETE RESTRICT key as 23503 (foreign_key_violation), PostgreSQL 16
 * and later (PGlite included) as 23001 (restrict_violation).
 */
export function isForeignKeyViolation(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: string }).code;
  return code === '23503' || code === '23001';
}

/**
 * SQLSTATEs of a statement that failed because the server cannot serve it now, not because of
 * what it holds: a connection exception (class 08), the server shutting down or starting up
 * (57P01-57P03), out of connections or other resources (class 53), and the two failures a retry
 * of the same transaction cures (40001 serialization, 40P01 deadlock).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|53...|57P0[123]|40001|40P01)$/;

/** Socket errors of the driver reaching the server (TCP, or PGlite's unix socket). */
const UNREACHABLE_SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
]);

/** What `pg` says, without a code, when a connection drops mid-statement or the pool waits too long for one. */
const UNREACHABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end)/;

/**
 * True when an operation failed because the database is unavailable (down, restarting, out of
 * connections, unreachable), so the same work is worth retrying later as it is; false when the
 * work itself failed (a constraint, a value the column refuses, a bug), which a retry repeats.
 *
 * TypeORM wraps every failed statement in a QueryFailedError; an error while connecting (a pool
 * checkout, `BEGIN` on a fresh connection) reaches the caller as `pg`'s own DatabaseError, with any
 * SQLSTATE (55000 "not accepting connections", 3D000, 28P01…): all of those mean the server cannot
 * be used, whatever the work was.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof CannotExecuteNotConnectedError) return true;
  if (error instanceof DatabaseError) return true;
  const cause = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  if (!(cause instanceof Error)) return false;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNREACHABLE_SOCKET.has(code))) return true;
  return UNREACHABLE_MESSAGE.test(cause.message);
}

/** True when the server aborted the transaction to break a deadlock (40P01): the same transaction run again can succeed. */
export function isDeadlock(error: unknown): boolean {
  return error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '40P01';
}

/** True when PostgreSQL does not know a time zone a statement named (SQLSTATE 22023): its tz database may lack one the runtime knows. */
export function isUnknownTimeZone(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; message?: string };
  return driverError.code === '22023' && /time zone/.test(driverError.message ?? '');
}
