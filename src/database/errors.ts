import { QueryFailedError } from 'typeorm';

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
