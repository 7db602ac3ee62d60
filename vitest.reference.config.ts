import { defineConfig } from "vitest/config";
import { referenceTests, sharedOptions } from "./vitest.config.ts";

/** `npm run test:reference`: only the checks against `../shared`, beside the repository. */
export default defineConfig({
  test: {
    include: [referenceTests],
    ...sharedOptions,
  },
});
