/**
 * The fault suite (`npm run test:faults`): crashes, outages and hostile input against real servers
 * on loopback, and the contact book at 100,000 lines. Slower than the unit and end-to-end suites,
 * so kept out of `npm test`.
 * @type {import('jest').Config}
 */
const base = require('./jest.config');

module.exports = { ...base, testMatch: ['**/test/faults/**/*.fault.spec.ts'], testPathIgnorePatterns: ['/node_modules/'], maxWorkers: 1 };
