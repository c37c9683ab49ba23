import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from '../../src/database/errors';

const failedStatement = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a connection refused while connecting', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    [
      'a server error while connecting (not accepting connections)',
      new DatabaseError('database "x" is not currently accepting connections', 0, 'error'),
    ],
    [
      'a backend terminated by the administrator',
      failedStatement(withCode('terminating connection due to administrator command', '57P01')),
    ],
    ['a server starting up', failedStatement(withCode('the database system is starting up', '57P03'))],
    ['a connection exception', failedStatement(withCode('connection failure', '08006'))],
    ['too many connections', failedStatement(withCode('sorry, too many clients already', '53300'))],
    ['a deadlock, which a retry cures', failedStatement(withCode('deadlock detected', '40P01'))],
    ['a connection dropped mid-statement', failedStatement(new Error('Connection terminated unexpectedly'))],
    ['a pool that waited too long', new Error('timeout exceeded when trying to connect')],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', failedStatement(withCode('duplicate key', '23505'))],
    ['a value the column refuses', failedStatement(withCode('invalid byte sequence for encoding "UTF8": 0x00', '22021'))],
    ['an index row too large', failedStatement(withCode('index row requires 26688 bytes, maximum size is 8191', '54000'))],
    ['a missing table', failedStatement(withCode('relation "contacts" does not exist', '42P01'))],
    ['a bug in the code', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['something that is not an error', 'nope'],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
