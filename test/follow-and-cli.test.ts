import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCheckpoint } from "../src/db/write-range.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { createTestDatabase, type TestDatabase } from "./support/databases.ts";

describe("following the head", () => {
  let anvil: Anvil;
  let test: TestDatabase;

  beforeAll(async () => {
    anvil = await startAnvil();
    test = await createTestDatabase("pglite");
  });
  afterAll(async () => {
    await test?.drop();
    await anvil?.stop();
  });

  it("indexes blocks mined after catch-up, within a few poll intervals", async () => {
    const client = createRpcClient({ url: anvil.rpcUrl });
    const indexer = createIndexer({
      client,
      db: test.db,
      logger: createLogger("silent"),
      pollIntervalMs: 50,
    });
    await indexer.prepare();
    const controller = new AbortController();
    const running = indexer.run(controller.signal);
    const waitFor = async (condition: () => Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await condition())) {
        if (Date.now() > deadline) throw new Error("timed out");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    await waitFor(async () => indexer.status().following);
    const [from, to] = await client.request<string[]>("eth_accounts");
    const hash = await client.request<string>("eth_sendTransaction", [{ from, to, value: toHex(7) }]);
    await waitFor(async () => {
      const rows = await test.db.query("SELECT 1 FROM transactions WHERE hash = $1", [
        Buffer.from(hash.slice(2), "hex"),
      ]);
      return rows.length === 1;
    });
    await client.request("anvil_mine", ["0x5"]);
    const head = BigInt(await client.request<string>("eth_blockNumber"));
    await waitFor(async () => (await readCheckpoint(test.db)) === head);
    expect(indexer.status()).toMatchObject({ indexedBlock: head, following: true });
    controller.abort();
    await running;
  });
});

describe("sextant CLI", () => {
  const cli = join(import.meta.dirname, "../bin/sextant.js");
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [cli, ...args], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: "" },
    });

  it.each([
    [["start", "--port", "abc"], 'sextant: --port must be an integer from 0 to 65535, got "abc"'],
    [["start"], "sextant: no node to index: set ETHEREUM_JSONRPC_HTTP_URL or pass --rpc"],
    [["index", "--rpc", "ftp://node"], 'sextant: --rpc must use http: or https:, got "ftp://node"'],
    [["start", "--bogus", "1"], "sextant: unknown option --bogus"],
    [
      ["migrate", "--database", "mysql://db"],
      'sextant: --database must use postgres: or postgresql:, got "mysql://db"',
    ],
  ])("%j stops with one clear line and exit code 2", (args, line) => {
    const result = run(...args);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`${line}\n`);
  });

  it("refuses an environment variable with a bad value the same way", () => {
    const result = spawnSync(process.execPath, [cli, "serve"], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: "", PORT: "70000" },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('sextant: PORT must be an integer from 0 to 65535, got "70000"\n');
  });
});
