import { getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { listAddressTransactions } from "../src/db/queries/address-transactions.ts";
import { decodeRevertReason } from "../src/decode/revert-reason.ts";
import type { Artifact } from "../src/demo/compile.ts";
import type { ScenarioResult } from "../src/demo/scenario.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { databaseKinds, type TestDatabase } from "./support/databases.ts";
import { demoArtifact } from "./support/demo-artifact.ts";
import { indexNode } from "./support/index-node.ts";

type StoredTransaction = {
  hash: Hex;
  from: Hex;
  status: number;
  error: string | null;
  revert_output: Hex | null;
};

const tracers = ["parity", "callTracer"] as const;

describe.each(databaseKinds)("revert output of the demo chain's failed transactions on %s", (kind) => {
  const client = createRpcClient({ url: inject("demoRpcUrl") });
  const scenario = JSON.parse(inject("demoScenario")) as ScenarioResult;
  const stored = new Map<(typeof tracers)[number], Map<Hex, StoredTransaction>>();
  let parityDatabase: TestDatabase;
  let playgroundAbi: Artifact["abi"];

  beforeAll(async () => {
    playgroundAbi = (await demoArtifact("Playground")).abi;
    const head = BigInt(await client.request<string>("eth_blockNumber"));
    for (const tracer of tracers) {
      const { test } = await indexNode(kind, client, { tracer, rangeSize: 50, head });
      const rows = await test.db.query<StoredTransaction>(
        `SELECT '0x' || encode(hash, 'hex') AS hash, '0x' || encode(from_address, 'hex') AS "from", status, error,
                '0x' || encode(revert_output, 'hex') AS revert_output
         FROM transactions`,
      );
      stored.set(tracer, new Map(rows.map((row) => [row.hash, row])));
      if (tracer === "parity") parityDatabase = test;
      else await test.drop();
    }
  });
  afterAll(async () => {
    await parityDatabase?.drop();
  });

  const transaction = (hash: Hex) =>
    stored.get("parity")?.get(hash.toLowerCase() as Hex) as StoredTransaction;
  const reason = (hash: Hex, withAbi = true) =>
    decodeRevertReason({ output: transaction(hash).revert_output, abi: withAbi ? playgroundAbi : null });

  test("is the same from trace_block and from debug_traceBlockByNumber", () => {
    expect(stored.get("parity")?.size).toBeGreaterThan(100);
    expect(stored.get("callTracer")).toEqual(stored.get("parity"));
  });

  test("is kept exactly for the transactions that reverted", () => {
    const rows = [...(stored.get("parity")?.values() ?? [])];
    const reverted = rows.filter((row) => row.error === "reverted");
    expect(reverted.length).toBeGreaterThan(10);
    expect(reverted.every((row) => row.status === 0 && row.revert_output !== null)).toBe(true);
    expect(rows.filter((row) => row.error !== "reverted").every((row) => row.revert_output === null)).toBe(
      true,
    );
  });

  test("decodes to Playground's require message", () => {
    const message = {
      method_id: "08c379a0",
      method_call: "Error(string reason)",
      parameters: [{ name: "reason", type: "string", value: "Playground: requested failure" }],
    };
    expect(reason(scenario.examples.failedWithReason)).toEqual(message);
    // Error(string) needs no ABI.
    expect(reason(scenario.examples.failedWithReason, false)).toEqual(message);
  });

  test("decodes to Playground's custom error with the caller and code it was given", () => {
    const { from, revert_output } = transaction(scenario.examples.failedWithCustomError);
    expect(reason(scenario.examples.failedWithCustomError)).toEqual({
      method_id: revert_output?.slice(2, 10),
      method_call: "RequestedFailure(address caller, uint256 code)",
      parameters: [
        { name: "caller", type: "address", value: getAddress(from) },
        { name: "code", type: "uint256", value: expect.stringMatching(/^[0-9]+$/) },
      ],
    });
    // Without Playground's ABI nothing knows the selector: the raw data.
    expect(reason(scenario.examples.failedWithCustomError, false)).toEqual({ raw: revert_output });
  });

  test("has nothing to decode for a transaction that ran out of gas", () => {
    expect(transaction(scenario.examples.failedOutOfGas)).toMatchObject({
      error: "out of gas",
      revert_output: null,
    });
    expect(reason(scenario.examples.failedOutOfGas)).toBeNull();
  });

  test("decodes OpenZeppelin's custom errors of the demo tokens from the built-in ABIs", () => {
    const calls = scenario.failedTransactionHashes.map((hash) => {
      const decoded = reason(hash, false);
      return decoded !== null && "method_call" in decoded ? decoded.method_call : null;
    });
    expect(calls).toContain("ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)");
    expect(calls).toContain("OwnableUnauthorizedAccount(address account)");
  });

  test("is on the transaction rows the API reads", async () => {
    const { from, hash, revert_output } = transaction(scenario.examples.failedWithReason);
    const rows = await listAddressTransactions(parityDatabase.db, {
      address: from,
      filter: "from",
      sort: "block_number",
      order: "desc",
      cursor: {},
      limit: 1000,
    });
    const row = rows.find((candidate) => candidate.hash === hash);
    expect(row?.revert_output).toBe(revert_output);
    expect(rows.find((candidate) => candidate.status === 1)?.revert_output).toBeNull();
  });
});
