import { afterAll, beforeAll, describe, it } from "vitest";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { runScenario } from "../src/demo/scenario.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { sleep } from "../src/sleep.ts";
import { capturingLogger } from "./support/capturing-logger.ts";
import { type DatabaseKind, databaseKinds, fingerprint } from "./support/databases.ts";
import { faultKinds, startFaultProxy } from "./support/fault-proxy.ts";
import { type FollowedNode, followNode, indexNode } from "./support/index-node.ts";
import { until } from "./support/until.ts";

describe("indexing through a faulty node", () => {
  let anvil: Anvil;
  let head: bigint;

  // One chain for every database: the indexers only read it.
  beforeAll(async () => {
    anvil = await startAnvil();
    // Some 230 blocks of contract deployments, token transfers, nested calls, reverts and selfdestructs.
    head = (await runScenario({ rpcUrl: anvil.rpcUrl, rounds: 20 })).headBlockNumber;
  });
  afterAll(() => anvil?.stop());

  // The databases side by side, each through a proxy of its own: each run spends half its time waiting
  // out the node's outage.
  it.concurrent.for(databaseKinds)(
    "on %s, rides out every fault and ends with exactly the rows of a clean run",
    { timeout: 240_000 },
    async (kind: DatabaseKind, { expect }) => {
      const clean = await indexNode(kind, anvil.rpcUrl, { rangeSize: 5, head });
      expect(clean.head).toBe(head);
      const expected = await fingerprint(clean.test.db);
      await clean.test.drop();

      const proxy = await startFaultProxy({ target: anvil.rpcUrl, faults: faultKinds, rate: 0.15, seed: 42 });
      const { logger, lines } = capturingLogger<{ what?: string; error?: string }>();
      let faulty: FollowedNode | undefined;
      try {
        faulty = await followNode(
          kind,
          // A short timeout, so held requests cost little; short client retries, so some faults reach the indexer.
          createRpcClient({ url: proxy.url, timeoutMs: 300, retryDelayMs: 5 }),
          { logger, rangeSize: 5, pollIntervalMs: 50 },
        );
        const { indexer, running } = faulty;
        const indexed = () => indexer.status().indexedBlock ?? -1n;
        const options = { intervalMs: 10, failOn: running };

        // The node stops mid-run for 30 s, refusing connections, then comes back.
        // Bounds on a loaded machine: both databases index at once, and PGlite's work holds the thread the
        // other run's requests time out on.
        await until("block 20", async () => indexed() >= 20n, { ...options, timeoutMs: 60_000 });
        await proxy.setDown(true);
        await sleep(30_000);
        expect(indexed()).toBeLessThan(head);
        await proxy.setDown(false);

        // Done once the head is stored and every burst of node errors ended in a recovery.
        const warnings = () => lines.filter((line) => line.msg === "node error, retrying");
        const recoveries = () => lines.filter((line) => line.msg === "recovered after node errors");
        await until(
          "the head, every burst of node errors recovered",
          async () => indexed() === head && warnings().length === recoveries().length,
          { ...options, timeoutMs: 90_000 },
        );
        await faulty.stop();

        expect(await fingerprint(faulty.test.db)).toEqual(expected);
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
        try {
          await faulty?.drop();
        } finally {
          await proxy.close();
        }
      }
    },
  );
});
