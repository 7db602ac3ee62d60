import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { fetchRange } from "../src/indexer/fetch-range.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { RpcInvalidAnswerError } from "../src/rpc/errors.ts";
import { databaseKinds } from "./support/databases.ts";
import type { JsonRpcCall } from "./support/fault-proxy.ts";
import { indexNode } from "./support/index-node.ts";
import { type JsonRpcAnswer, type RoutingProxy, startRoutingProxy } from "./support/routing-proxy.ts";
import { sendTransaction } from "./support/transact.ts";

/** Init code that returns ten bytes of runtime code (PUSH1 0x2a, MSTORE, RETURN 32 bytes). */
const deploysCode: Hex = "0x600a600c600039600a6000f3602a60005260206000f3";
/** Init code that stops at INVALID: the creation fails, though the receipt names the address. */
const failsToDeploy: Hex = "0xfe";

type Receipt = Record<string, unknown>;

/** Receipts as nodes send them for blocks before Byzantium: a state root, no status. */
function beforeByzantium(call: JsonRpcCall, answer: JsonRpcAnswer): JsonRpcAnswer {
  const strip = (receipt: Receipt | null) => {
    if (receipt === null) return null;
    const { status: _, ...rest } = receipt;
    return { ...rest, root: `0x${"11".repeat(32)}` };
  };
  if (call.method === "eth_getBlockReceipts" && Array.isArray(answer.result))
    return { ...answer, result: answer.result.map(strip) };
  if (call.method === "eth_getTransactionReceipt")
    return { ...answer, result: strip(answer.result as Receipt | null) };
  return answer;
}

describe.each(databaseKinds)("receipts without a status (before Byzantium), on %s", (kind) => {
  let anvil: Anvil;
  let proxy: RoutingProxy;
  let deployed: string;
  let failed: string;
  let sender: string;

  beforeAll(async () => {
    anvil = await startAnvil();
    const client = createRpcClient({ url: anvil.rpcUrl });
    const [owner] = await client.request<Hex[]>("eth_accounts");
    sender = owner as string;
    const create = (data: Hex) => sendTransaction(client, { from: owner as Hex, data, gas: "0x30000" });
    const failure = await create(failsToDeploy);
    const success = await create(deploysCode);
    expect([failure.status, success.status]).toEqual(["0x0", "0x1"]);
    failed = (failure.contractAddress as string).toLowerCase();
    deployed = (success.contractAddress as string).toLowerCase();
    proxy = await startRoutingProxy({ route: () => anvil.rpcUrl, rewrite: beforeByzantium });
  });
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  it.each(["none", "parity"] as const)(
    "takes a creation's address as a contract only where code was deployed, and its status from the trace (tracer %s)",
    async (tracer) => {
      const { test } = await indexNode(kind, createRpcClient({ url: proxy.url }), { tracer });
      try {
        const rows = await test.db.query<{ hash: string; is_contract: boolean }>(
          "SELECT '0x' || encode(hash, 'hex') AS hash, is_contract FROM addresses WHERE hash IN (decode($1, 'hex'), decode($2, 'hex'))",
          [deployed.slice(2), failed.slice(2)],
        );
        const isContract = Object.fromEntries(rows.map((row) => [row.hash, row.is_contract]));
        expect(isContract[deployed]).toBe(true);
        expect(isContract[failed] ?? false).toBe(false);
        // The trace tells what the receipt does not.
        const statuses = await test.db.query<{ status: number | null }>(
          "SELECT status FROM transactions ORDER BY block_number",
        );
        expect(statuses.map((row) => row.status)).toEqual(tracer === "none" ? [null, null] : [0, 1]);
        // The API says so as Blockscout does: no status, and a result that waits for the trace, not `success`.
        const app = await createApiServer({ db: test.db });
        const { items } = (await app.inject(`/api/v2/addresses/${sender}/transactions`)).json();
        await app.close();
        const shown = items.map((item: { status: string | null; result: string }) => [
          item.status,
          item.result,
        ]);
        expect(shown).toEqual(
          tracer === "none"
            ? [
                [null, "awaiting_internal_transactions"],
                [null, "awaiting_internal_transactions"],
              ]
            : [
                ["ok", "success"],
                ["error", expect.not.stringMatching(/^(success|awaiting_internal_transactions)$/)],
              ],
        );
      } finally {
        await test.drop();
      }
    },
  );
});

describe("a node without block receipts that no longer indexes a transaction", () => {
  let anvil: Anvil;
  let proxy: RoutingProxy;

  beforeAll(async () => {
    anvil = await startAnvil();
    const client = createRpcClient({ url: anvil.rpcUrl });
    const [owner] = await client.request<Hex[]>("eth_accounts");
    await sendTransaction(client, { from: owner as Hex, to: owner as Hex, value: "0x1" });
    // geth before 1.13 lacks eth_getBlockReceipts, and past --history.transactions answers null.
    proxy = await startRoutingProxy({
      route: () => anvil.rpcUrl,
      answer: (call) =>
        call.method === "eth_getBlockReceipts"
          ? {
              error: {
                code: -32601,
                message: "the method eth_getBlockReceipts does not exist/is not available",
              },
            }
          : call.method === "eth_getTransactionReceipt"
            ? { result: null }
            : undefined,
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  it("says what the node must keep, in the error the indexer logs while it retries", async () => {
    const failure = await fetchRange(createRpcClient({ url: proxy.url, retries: 0 }), {
      from: 1n,
      to: 1n,
    }).catch((error) => error);
    expect(failure).toBeInstanceOf(RpcInvalidAnswerError);
    expect(failure.retryable).toBe(true);
    expect(failure.shortMessage).toMatch(/no receipt for 1 of 1 transactions .*--history\.transactions=0/);
  });
});
