import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCheckpoint } from "../src/db/checkpoints.ts";
import { openDatabase } from "../src/db/client.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { createTestDatabase, type DatabaseKind, databaseKinds, fingerprint } from "./support/databases.ts";
import { only } from "./support/elements.ts";
import { indexNode } from "./support/index-node.ts";
import { waitForReceipt } from "./support/transact.ts";

const cli = join(import.meta.dirname, "../bin/sextant.js");

/** 400 transactions between five accounts, a contract creation now and then: some 200 to 400 blocks. */
async function buildChain(client: RpcClient) {
  const accounts = await client.request<string[]>("eth_accounts");
  let last: Hex = "0x";
  for (let i = 0; i < 400; i++) {
    const from = accounts[i % 5];
    const transaction =
      i % 50 === 0
        ? { from, data: "0x602a60005260206000f3" }
        : { from, to: accounts[(i + 1) % 5], value: toHex(i) };
    last = await client.request<Hex>("eth_sendTransaction", [transaction]);
  }
  // When busy, anvil packs several pending transactions into one block.
  await waitForReceipt(client, last);
}

/** Resolves with the indexer child once it logged a written range ending at `block` or later. */
function waitForRange(child: ChildProcess, block: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    let all = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      all += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (line.includes('"range written"') && JSON.parse(line).to >= block) resolve();
      }
    });
    child.once("exit", (code) =>
      reject(new Error(`indexer exited early with code ${code}: ${all.slice(-500)}`)),
    );
  });
}

describe.each(databaseKinds)("a stop during catch-up on %s", (kind: DatabaseKind) => {
  let anvil: Anvil;
  let client: RpcClient;
  let head: bigint;
  let expected: Record<string, string>;
  const logger = createLogger("silent");

  beforeAll(async () => {
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl });
    await buildChain(client);
    const reference = await indexNode(kind, client, { rangeSize: 10 });
    head = reference.head as bigint;
    expected = await fingerprint(reference.test.db);
    await reference.test.drop();
  });
  afterAll(() => anvil?.stop());

  it.each(["SIGKILL", "SIGTERM"] as const)(
    "loses and duplicates nothing after %s: a restart ends with the rows of an uninterrupted run",
    async (signal) => {
      expect(Number(head)).toBeGreaterThanOrEqual(200);
      const interrupted = await createTestDatabase(kind);
      // The child opens the database itself: PGlite allows one process at a time.
      await interrupted.db.close();
      const target =
        kind === "pglite"
          ? ["--data-dir", interrupted.dataDir as string]
          : ["--database", interrupted.url as string];
      const child = spawn(
        process.execPath,
        [
          cli,
          "index",
          "--rpc",
          anvil.rpcUrl,
          ...target,
          "--range-size",
          "3",
          "--concurrency",
          "2",
          "--log-level",
          "debug",
        ],
        { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, DATABASE_URL: "" } },
      );
      let log = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        log += chunk.toString();
      });
      await waitForRange(child, 60);
      child.kill(signal);
      const [code] = await new Promise<[number | null]>((resolve) =>
        child.once("exit", (exitCode) => resolve([exitCode])),
      );
      if (signal === "SIGTERM") {
        // A stop asked for finishes the range being written and says so in one line.
        expect(code).toBe(0);
        expect(log.trim().split("\n").at(-1)).toContain('"msg":"stopped"');
      }

      const reopened = await openDatabase({
        databaseUrl: interrupted.url,
        dataDir: interrupted.dataDir ? interrupted.dataDir : undefined,
      });
      const checkpoint = (await readCheckpoint(reopened)) as bigint;
      expect(checkpoint).toBeGreaterThanOrEqual(60n);
      expect(checkpoint).toBeLessThan(head);
      const { stored } = only(
        await reopened.query<{ stored: number }>("SELECT max(number) AS stored FROM blocks"),
      );
      expect(BigInt(stored)).toBe(checkpoint);

      const restarted = createIndexer({ client, db: reopened, logger, rangeSize: 7 });
      await restarted.prepare();
      expect(await restarted.catchUp(head)).toBe(head);
      expect(await fingerprint(reopened)).toEqual(expected);
      await reopened.close();
      interrupted.db = reopened;
      await interrupted.drop().catch(() => {});
    },
  );
});
