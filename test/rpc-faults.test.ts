import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { runScenario } from "../src/demo/scenario.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { sleep } from "../src/sleep.ts";
import { createTestDatabase, type DatabaseKind, databaseKinds, fingerprint } from "./support/databases.ts";
import { faultKinds, startFaultProxy } from "./support/fault-proxy.ts";

type LogLine = { level: number; msg: string; what?: string; error?: string };

/** A pino logger that keeps every line, to check what the indexer said about the faults. */
function capturingLogger() {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: "info", base: undefined },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  return { logger, lines };
}

/** Resolves once `condition` holds; rejects when `running` rejects first or `timeoutMs` passes. */
async function until(condition: () => boolean, running: Promise<unknown>, timeoutMs: number): Promise<void> {
  let failure: unknown;
  running.catch((error) => {
    failure = error;
  });
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (failure) throw failure;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

describe.each(databaseKinds)("indexing through a faulty node on %s", (kind: DatabaseKind) => {
  let anvil: Anvil;
  let head: bigint;

  beforeAll(async () => {
    anvil = await startAnvil();
    // Some 230 blocks of contract deployments, token transfers, nested calls, reverts and selfdestructs.
    head = (await runScenario({ rpcUrl: anvil.rpcUrl, rounds: 20 })).headBlockNumber;
  });
  afterAll(() => anvil?.stop());

  it("rides out every fault and ends with exactly the rows of a clean run", async () => {
    const clean = await createTestDatabase(kind);
    const cleanIndexer = createIndexer({
      client: createRpcClient({ url: anvil.rpcUrl }),
      db: clean.db,
      logger: createLogger("silent"),
      rangeSize: 5,
    });
    await cleanIndexer.prepare();
    expect(await cleanIndexer.catchUp(head)).toBe(head);
    const expected = await fingerprint(clean.db);
    await clean.drop();

    const proxy = await startFaultProxy({ target: anvil.rpcUrl, faults: faultKinds, rate: 0.15, seed: 42 });
    const faulty = await createTestDatabase(kind);
    const { logger, lines } = capturingLogger();
    const indexer = createIndexer({
      // A short timeout, so held requests cost little; short client retries, so some faults reach the indexer.
      client: createRpcClient({ url: proxy.url, timeoutMs: 300, retryDelayMs: 5 }),
      db: faulty.db,
      logger,
      rangeSize: 5,
      pollIntervalMs: 50,
    });
    const controller = new AbortController();
    try {
      await indexer.prepare();
      const running = indexer.run(controller.signal);
      const indexed = () => indexer.status().indexedBlock ?? -1n;

      // The node stops mid-run for 30 s, refusing connections, then comes back.
      await until(() => indexed() >= 20n, running, 30_000);
      await proxy.setDown(true);
      await sleep(30_000);
      expect(indexed()).toBeLessThan(head);
      await proxy.setDown(false);

      // Done once the head is stored and every burst of node errors ended in a recovery.
      const warnings = () => lines.filter((line) => line.msg === "node error, retrying");
      const recoveries = () => lines.filter((line) => line.msg === "recovered after node errors");
      await until(() => indexed() === head && warnings().length === recoveries().length, running, 45_000);
      controller.abort();
      await running;

      expect(await fingerprint(faulty.db)).toEqual(expected);
      for (const fault of faultKinds) expect(proxy.counts[fault], fault).toBeGreaterThan(0);
      expect(warnings().some((line) => line.error?.includes("cannot reach"))).toBe(true);
      // One warning when a burst starts and one line when it ends, never a line per failed attempt.
      const open = new Set<string | undefined>();
      for (const line of lines) {
        if (line.msg === "node error, retrying") {
          expect(open.has(line.what), `a second warning for ${line.what}`).toBe(false);
          open.add(line.what);
        } else if (line.msg === "recovered after node errors") {
          expect(open.delete(line.what), `a recovery for ${line.what} without a warning`).toBe(true);
        }
      }
    } finally {
      controller.abort();
      await proxy.close();
      await faulty.drop();
    }
  }, 240_000);
});
