import { configDefaults, defineConfig } from "vitest/config";

/**
 * Checks against material outside the repository (`../shared`: the interface document, Blockscout's
 * OpenAPI, recorded Blockscout responses): `npm run test:reference` runs them, `npm test` never reads them.
 */
export const referenceTests = "test/reference/**/*.test.ts";

/** What both suites share: the demo chain's anvil and the time and workers this machine allows. */
export const sharedOptions = {
  globalSetup: ["test/global-setup.ts"],
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Two cores: anvil, PostgreSQL and the tests share them.
  maxWorkers: 2,
  // Each worker keeps the modules it has loaded from one test file to the next: loaded again for each of
  // the suite's 87 files, they took 116 s ("import" in Vitest's report, beside 1,791 s of "tests"). A test
  // restores whatever process-wide state it changes.
  isolate: false,
};

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, referenceTests],
    ...sharedOptions,
  },
});
