import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { runScenario, type ScenarioResult } from "../src/demo/scenario.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** JSON-RPC URL of the shared anvil that holds the demo scenario; tests must not add blocks to it. */
    demoRpcUrl: string;
    demoScenario: string;
    /** A migrated, empty PGlite folder that test databases start as copies of; tests must not open it. */
    pgliteTemplate: string;
  }
}

let anvil: Anvil | undefined;
let templateDir: string | undefined;

/**
 * Creates the PGlite folder test databases are copied from: a new PGlite spends some 2 s creating its
 * cluster in WASM, a copy of one a third of a second, and the suite creates some hundred of them.
 */
async function createPgliteTemplate(): Promise<string> {
  templateDir = mkdtempSync(join(tmpdir(), "sextant-template-"));
  const db = await openDatabase({ dataDir: templateDir });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  return join(templateDir, "pglite");
}

/**
 * Starts one anvil with the demo scenario for every test file that indexes the demo chain, and creates the
 * template of PGlite test databases.
 */
export async function setup(project: TestProject) {
  const template = createPgliteTemplate();
  anvil = await startAnvil();
  const scenario: ScenarioResult = await runScenario({ rpcUrl: anvil.rpcUrl });
  project.provide("pgliteTemplate", await template);
  project.provide("demoRpcUrl", anvil.rpcUrl);
  project.provide(
    "demoScenario",
    JSON.stringify(scenario, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
  );
}

export async function teardown() {
  await anvil?.stop();
  if (templateDir) rmSync(templateDir, { recursive: true, force: true });
}
