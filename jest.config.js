/** Unit tests run once; the database stories run on in-process PGlite and again over the wire. */
const common = {
  preset: 'ts-jest',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
  testEnvironment: 'node',
  rootDir: '.',
  // client/ is the published client package, built from src/client.
  modulePathIgnorePatterns: ['<rootDir>/client/'],
  moduleNameMapper: {
    '^@electric-sql/pglite/vector$':
      '<rootDir>/node_modules/@electric-sql/pglite/dist/vector/index.cjs',
  },
};

module.exports = {
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/**/*.spec.ts'],
      testPathIgnorePatterns: ['e2e-spec'],
    },
    { ...common, displayName: 'db', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
