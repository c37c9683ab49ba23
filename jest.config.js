/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  // The fault suite runs on its own: npm run test:faults (jest.faults.config.js).
  testPathIgnorePatterns: ['/node_modules/', '/test/faults/'],
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  // NestJS 12 and a few of its dependencies ship ES modules only, as do file-type and its own: compile them too.
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|file-type|strtok3|token-types|@tokenizer/inflate|@borewit/text-codec|uint8array-extras|load-esm|uid|cookie|content-disposition)/)',
  ],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60_000,
  // Measured on this 2-core machine: on PostgreSQL + Redis the tests wait on the network and timers
  // half the time (2 workers kept 1.07 cores busy), so 4 workers take 148 s where 2 took 240; the
  // embedded engine is CPU-bound sooner (2 workers kept 1.6 cores busy): 3 take 216 s where 2 took 276.
  maxWorkers: process.env.TEST_DATABASE_URL ? 4 : 3,
};
