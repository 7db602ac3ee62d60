import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Checks against material outside the repository (`../shared`: the interface document, Blockscout's
 * OpenAPI, recorded Blockscout responses): `npm run test:reference` runs them, `npm test` never reads them.
 */
export const referenceTests = "test/reference/**/*.test.ts";

/**
 * Files that take a minute or more on any machine (a node kept away for 30 s, processes started and killed,
 * a database per case): started first. Vitest orders by the last run's durations when it has them, but a
 * fresh clone has none and starts larger files first: the slowest file, a small one, then started last and
 * ran alone on one worker for 95 s of a 769 s suite.
 */
const startedFirst = [
  "test/rpc-faults.test.ts",
  "test/operator-errors.test.ts",
  "test/generic-plans.test.ts",
  "test/reorg.test.ts",
  "test/demo-restarts.test.ts",
  "test/kill-restart.test.ts",
];

/** Vitest's order, with {@link startedFirst} moved ahead. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = startedFirst.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return index === -1 ? startedFirst.length : index;
    };
    return (await super.sort(files))
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}

/** What both suites share: the demo chain's anvil and the time and workers this machine allows. */
export const sharedOptions = {
  sequence: { sequencer: LongestFirst },
  globalSetup: ["test/global-setup.ts"],
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Two cores: anvil, PostgreSQL and the tests share them.
  maxWorkers: 2,
};

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, referenceTests],
    ...sharedOptions,
  },
});
