import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/client.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { eth_blockNumber } from "../src/rpc/eth_blockNumber.ts";
import { eth_getBlockByNumber } from "../src/rpc/eth_getBlockByNumber.ts";
import { freePort } from "./support/free-port.ts";
import { type PostgresCluster, startPostgresCluster } from "./support/postgres-cluster.ts";
import { until } from "./support/until.ts";

const cli = join(import.meta.dirname, "../bin/sextant.js");
const outageMs = 15_000;

// PostgreSQL's server programs stop and start a cluster of the test's own, on its own port.
describe("a PostgreSQL outage under sextant start (postgres)", () => {
  let cluster: PostgresCluster;
  let anvil: Anvil;
  let child: ChildProcess;
  let log = "";

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
    await admin.unsafe("CREATE DATABASE sextant");
    await admin.end();
    anvil = await startAnvil({ blockTime: 1 });
  }, 120_000);
  afterAll(async () => {
    child?.kill("SIGKILL");
    await anvil?.stop();
    cluster?.destroy();
  });

  it("answers 503 while the database is down, then both the API and the indexer recover by themselves", async () => {
    const port = await freePort();
    const api = `http://127.0.0.1:${port}`;
    child = spawn(
      process.execPath,
      [cli, "start", "--rpc", anvil.rpcUrl, "--database", cluster.url("sextant"), "--port", String(port)],
      { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, SEXTANT_POLL_INTERVAL: "200" } },
    );
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
    });
    // A process that ends fails the waits at once, with what it logged.
    const failOn = once(child, "exit").then(([code]) => {
      throw new Error(`sextant exited with ${code}; its log ends:\n${log.slice(-4_000)}`);
    });
    const dbHead = async () =>
      Number((await (await fetch(`${api}/api/health`)).json()).metadata.blocks.latest_block.db.number);
    await until("indexed a few blocks", async () => (await dbHead()) >= 3, { failOn });

    cluster.stop("fast");
    const stoppedAt = Date.now();
    await until("answered 503", async () => (await fetch(`${api}/api/v2/token-transfers`)).status === 503, {
      timeoutMs: 10_000,
      failOn,
    });
    // Every request of the outage is answered at once, however many failed before it: the driver's
    // reconnection delay, which grew to 20 s with each failure, no longer holds requests.
    for (let request = 0; request < 40; request++) {
      const startedAt = Date.now();
      const during = await fetch(`${api}/api/v2/token-transfers`);
      expect(during.status).toBe(503);
      expect(await during.json()).toEqual({ message: expect.any(String) });
      expect(Date.now() - startedAt).toBeLessThan(2_000);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageMs - (Date.now() - stoppedAt))));
    expect(child.exitCode).toBeNull();
    cluster.start();

    const client = createRpcClient({ url: anvil.rpcUrl });
    const nodeHead = Number(await eth_blockNumber(client));
    await until("caught up after the outage", async () => (await dbHead()) >= nodeHead, { failOn });
    expect((await fetch(`${api}/api/v2/token-transfers`)).status).toBe(200);
    expect(log).toContain("database unavailable; waiting for it");
    // The indexer says so when its first full round after the outage ends (its heartbeat included),
    // which may come after the API already shows the blocks it wrote.
    await until("logged that the database is back", async () =>
      log.includes("database back; indexing again"),
    );

    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);

    // Every block from genesis to the indexed head, once, with the node's hash.
    const db = await openDatabase({ databaseUrl: cluster.url("sextant") });
    const rows = await db.query<{ number: number; hash: Buffer }>(
      "SELECT number, hash FROM blocks ORDER BY number",
    );
    await db.close();
    expect(rows.map((row) => row.number)).toEqual(rows.map((_, i) => i));
    const blocks = await eth_getBlockByNumber(client, {
      blocks: rows.map((row) => BigInt(row.number)),
      includeTransactions: false,
    });
    expect(rows.map((row) => `0x${row.hash.toString("hex")}`)).toEqual(blocks.map((block) => block?.hash));
  });
});
