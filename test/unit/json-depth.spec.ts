import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/common/json-depth';

describe('JSON nesting depth', () => {
  const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it('accepts nesting up to the limit and refuses one level more, arrays and objects alike', () => {
    expect(nestsDeeperThan(arrays(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(arrays(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan(`{"x":[${objects(MAX_JSON_DEPTH - 1)}]}`)).toBe(true);
  });

  it('counts depth, not the number of arrays and objects side by side', () => {
    expect(nestsDeeperThan(`[${new Array(10_000).fill('{"a":[1]}').join(',')}]`, 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ text: '['.repeat(1000) }), 2)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ text: `"\\${'{'.repeat(1000)}` }), 2)).toBe(false);
    expect(nestsDeeperThan(`["\\"", ${arrays(3)}]`, 3)).toBe(true);
  });

  it('answers a deep body of half a million levels without recursing', () => {
    expect(nestsDeeperThan(arrays(500_000))).toBe(true);
  });
});
