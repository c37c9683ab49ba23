import { sql } from '../../src/database/sql';

describe('sql', () => {
  it('turns every interpolated value into a numbered parameter', () => {
    expect(sql`SELECT * FROM t WHERE a = ${1} AND b = ${'x'}`.compile()).toEqual({
      text: 'SELECT * FROM t WHERE a = $1 AND b = $2',
      values: [1, 'x'],
    });
  });

  it('never puts a value into the text, whatever it holds', () => {
    const hostile = "'; DROP TABLE users; --";
    const { text, values } = sql`SELECT ${hostile}`.compile();
    expect(text).toBe('SELECT $1');
    expect(values).toEqual([hostile]);
  });

  it('splices nested fragments and renumbers their parameters', () => {
    const condition = sql`b = ${2}`;
    expect(sql`SELECT 1 WHERE a = ${1} AND ${condition} AND c = ${3}`.compile()).toEqual({
      text: 'SELECT 1 WHERE a = $1 AND b = $2 AND c = $3',
      values: [1, 2, 3],
    });
  });

  it('joins conditions into a WHERE clause, and writes none without conditions', () => {
    expect(sql`SELECT 1 ${sql.where([sql`a = ${1}`, sql`b = ${2}`])}`.compile()).toEqual({
      text: 'SELECT 1 WHERE a = $1 AND b = $2',
      values: [1, 2],
    });
    expect(sql`SELECT 1 ${sql.where([])}`.compile()).toEqual({ text: 'SELECT 1 ', values: [] });
  });

  it('takes raw text as written', () => {
    expect(sql`SELECT ${sql.raw('a, b')} FROM t`.compile()).toEqual({ text: 'SELECT a, b FROM t', values: [] });
  });
});
