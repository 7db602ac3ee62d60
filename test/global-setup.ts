import type { TestProject } from "vitest/node";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { runScenario, type ScenarioResult } from "../src/demo/scenario.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** JSON-RPC URL of the shared anvil that holds the demo scenario; tests must not add blocks to it. */
    demoRpcUrl: string;
    demoScenario: string;
  }
}

let anvil: Anvil | undefined;

/** Starts one anvil with the demo scenario for every test file that indexes the demo chain. */
export async function setup(project: TestProject) {
  anvil = await startAnvil();
  const scenario: ScenarioResult = await runScenario({ rpcUrl: anvil.rpcUrl });
  project.provide("demoRpcUrl", anvil.rpcUrl);
  project.provide(
    "demoScenario",
    JSON.stringify(scenario, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
  );
}

export async function teardown() {
  await anvil?.stop();
}
