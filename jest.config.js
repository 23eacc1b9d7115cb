/** Jest in ESM mode (ts-jest); run through `npm test`, which sets NODE_OPTIONS=--experimental-vm-modules. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: ['TS151001'] } },
    ],
  },
  testMatch: [
    '<rootDir>/test/**/*.spec.ts',
    '<rootDir>/test/**/*.int-spec.ts',
    '<rootDir>/test/**/*.e2e-spec.ts',
  ],
  testTimeout: 60000,
  maxWorkers: 2,
};
