import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCheckpoint } from "../src/db/checkpoints.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { type FollowedNode, followNode } from "./support/index-node.ts";
import { until } from "./support/until.ts";

describe("following the head", () => {
  let anvil: Anvil;
  let indexed: FollowedNode | undefined;

  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await indexed?.drop();
    await anvil?.stop();
  });

  it("indexes blocks mined after catch-up, within a few poll intervals", async () => {
    const client = createRpcClient({ url: anvil.rpcUrl });
    indexed = await followNode("pglite", client, { pollIntervalMs: 50 });
    const { test, indexer } = indexed;
    const options = { timeoutMs: 10_000, intervalMs: 25 };
    await until("catch-up", async () => indexer.status().following, options);
    const [from, to] = await client.request<string[]>("eth_accounts");
    const hash = await client.request<string>("eth_sendTransaction", [{ from, to, value: toHex(7) }]);
    await until(
      "the transaction to be indexed",
      async () => {
        const rows = await test.db.query("SELECT 1 FROM transactions WHERE hash = $1", [
          Buffer.from(hash.slice(2), "hex"),
        ]);
        return rows.length === 1;
      },
      options,
    );
    await client.request("anvil_mine", ["0x5"]);
    const head = BigInt(await client.request<string>("eth_blockNumber"));
    await until(
      "the mined blocks to be indexed",
      async () => (await readCheckpoint(test.db)) === head,
      options,
    );
    expect(indexer.status()).toMatchObject({ indexedBlock: head, following: true });
    await indexed.stop();
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
      ["start", "--trace-timeout", "30 seconds"],
      'sextant: --trace-timeout must be a duration such as 30s or 2m, got "30 seconds"',
    ],
    [
      ["start", "--trace-timeout", "0s"],
      'sextant: --trace-timeout must be a duration such as 30s or 2m, got "0s"',
    ],
    [
      ["migrate", "--database", "mysql://db"],
      'sextant: --database must use postgres: or postgresql:, got "mysql://db"',
    ],
    [["compact"], "sextant: compact needs PostgreSQL: set DATABASE_URL or pass --database"],
    [
      ["compact", "--compact-indexes-after", "-1"],
      'sextant: --compact-indexes-after must be an integer from 0 to 9007199254740991, got "-1"',
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
