import type { FastifyInstance } from "fastify";
import { type Hex, pad, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { databaseKinds } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";
import { sendTransaction } from "./support/transact.ts";

// CALL(gas, calldata[0:32] as address, callvalue, no input, no output), then STOP: the callee's failure is ignored.
const relayInitCode = ("0x600f600c600039600f6000f3600060006000600034600035" + "5af100") as Hex;
// SELFDESTRUCT(CALLER) on every call.
const selfdestructInitCode = "0x6002600c60003960026000f333ff";
// REVERT(0, 0)
const reverterInitCode = "0x6005600c60003960056000f360006000fd";

describe.each(databaseKinds)("/addresses/{hash}/internal-transactions on %s", (kind) => {
  let anvil: Anvil;
  let indexed: IndexedChain;
  let app: FastifyInstance;
  let sender: Hex;
  let payee: Hex;
  let relay: Hex;
  let reverter: Hex;
  let relayCreation: Hex;
  let failingCall: Hex;
  let directRevert: Hex;
  let destructed: Hex;
  const get = async (url: string) => {
    const response = await app.inject(url);
    return { status: response.statusCode, body: response.json() };
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    const client = createRpcClient({ url: anvil.rpcUrl });
    let destroyer: Hex;
    const accounts = await client.request<Hex[]>("eth_accounts");
    [sender, payee, destroyer] = [at(accounts, 3), at(accounts, 4), at(accounts, 5)];
    const deployed = await sendTransaction(client, { from: sender, data: relayInitCode });
    relay = deployed.contractAddress as Hex;
    relayCreation = deployed.hash;
    reverter = (await sendTransaction(client, { from: sender, data: reverterInitCode }))
      .contractAddress as Hex;
    for (let i = 1; i <= 51; i++) {
      await sendTransaction(client, {
        from: sender,
        to: relay,
        value: toHex(i),
        data: pad(payee, { size: 32 }),
        gas: "0x20000",
      });
    }
    directRevert = (await sendTransaction(client, { from: sender, to: reverter, gas: "0x10000" })).hash;
    failingCall = (
      await sendTransaction(client, {
        from: sender,
        to: relay,
        data: pad(reverter, { size: 32 }),
        gas: "0x20000",
      })
    ).hash;
    destructed = (await sendTransaction(client, { from: destroyer, data: selfdestructInitCode }))
      .contractAddress as Hex;
    await sendTransaction(client, { from: destroyer, to: destructed, gas: "0x10000" });
    indexed = await indexIntoNewDatabase(kind, client, { rangeSize: 16 });
    expect(indexed.indexer.status().tracer).toBe("parity");
    app = indexed.app;
  });
  afterAll(async () => {
    await indexed?.close();
    await anvil?.stop();
  });

  it("pages 51 internal transactions as 50 and a cursor, then 1 and null", async () => {
    const first = await get(`/api/v2/addresses/${payee}/internal-transactions`);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(50);
    const last = first.body.items[49];
    expect(first.body.next_page_params).toEqual({
      block_number: last.block_number,
      index: last.index,
      items_count: 50,
      transaction_index: last.transaction_index,
    });
    const params = new URLSearchParams(
      Object.entries(first.body.next_page_params).map(([k, v]) => [k, String(v)]),
    );
    const second = await get(`/api/v2/addresses/${payee}/internal-transactions?${params}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_page_params).toBeNull();
    const values = [...first.body.items, ...second.body.items].map((item: { value: string }) =>
      Number(item.value),
    );
    expect(values).toEqual(Array.from({ length: 51 }, (_, i) => 51 - i));
  });

  it("renders each frame with the contract's fields", async () => {
    const { body } = await get(`/api/v2/addresses/${payee}/internal-transactions`);
    const item = body.items[0];
    expect(item).toMatchObject({
      type: "call",
      index: 1,
      transaction_index: 0,
      value: "51",
      success: true,
      error: null,
      created_contract: null,
      gas_limit: expect.stringMatching(/^[1-9][0-9]*$/),
    });
    expect(item.from.hash.toLowerCase()).toBe(relay.toLowerCase());
    expect(item.from.is_contract).toBe(true);
    expect(item.to.hash.toLowerCase()).toBe(payee.toLowerCase());
    expect(item.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(item.timestamp).toMatch(/\.\d{6}Z$/);
    expect(typeof item.block_number).toBe("number");
  });

  it("gives a selfdestruct frame, which is given no gas, the gas limit 0 as Blockscout does", async () => {
    const { body } = await get(`/api/v2/addresses/${destructed}/internal-transactions?filter=from`);
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ type: "selfdestruct", index: 1, gas_limit: "0", success: true });
  });

  it("leaves out the top-level call and keeps an index-0 create", async () => {
    const ofSender = await get(`/api/v2/addresses/${sender}/internal-transactions`);
    expect(
      ofSender.body.items.map((item: { type: string; index: number }) => [item.type, item.index]),
    ).toEqual([
      ["create", 0],
      ["create", 0],
    ]);
    const ofRelay = await get(`/api/v2/addresses/${relay}/internal-transactions?filter=to`);
    expect(ofRelay.body.items).toHaveLength(1);
    expect(ofRelay.body.items[0]).toMatchObject({ type: "create", index: 0, to: null });
    expect(ofRelay.body.items[0].transaction_hash).toBe(relayCreation);
    expect(ofRelay.body.items[0].created_contract.hash.toLowerCase()).toBe(relay.toLowerCase());
  });

  it("filters to and from", async () => {
    const from = await get(`/api/v2/addresses/${relay}/internal-transactions?filter=from`);
    expect(from.body.items).toHaveLength(50);
    expect(
      from.body.items.every((item: { from: { hash: string } }) => item.from.hash.toLowerCase() === relay),
    ).toBe(true);
    const to = await get(`/api/v2/addresses/${payee}/internal-transactions?filter=from`);
    expect(to.body).toEqual({ items: [], next_page_params: null });
  });

  it("marks a failed frame and the transaction that contains it", async () => {
    const { body } = await get(`/api/v2/addresses/${reverter}/internal-transactions?filter=to`);
    const failed = body.items.find(
      (item: { transaction_hash: string }) => item.transaction_hash === failingCall,
    );
    expect(failed).toMatchObject({ success: false, error: "reverted", type: "call" });
    const transactions = (await get(`/api/v2/addresses/${relay}/transactions`)).body.items;
    const outer = transactions.find((item: { hash: string }) => item.hash === failingCall);
    expect(outer).toMatchObject({
      status: "ok",
      result: "success",
      has_error_in_internal_transactions: true,
    });
    expect(
      transactions.find((item: { hash: string }) => item.hash !== failingCall)
        .has_error_in_internal_transactions,
    ).toBe(false);
    const reverted = (await get(`/api/v2/addresses/${reverter}/transactions`)).body.items;
    expect(reverted.find((item: { hash: string }) => item.hash === directRevert)).toMatchObject({
      status: "error",
      result: "Reverted",
    });
  });

  it("resumes from a partial cursor without repeating, and rejects bad input", async () => {
    const first = await get(`/api/v2/addresses/${payee}/internal-transactions`);
    const { block_number, index } = first.body.next_page_params;
    const partial = await get(
      `/api/v2/addresses/${payee}/internal-transactions?block_number=${block_number}&index=${index}`,
    );
    expect(partial.status).toBe(200);
    expect(
      partial.body.items.every((item: { block_number: number }) => item.block_number < block_number),
    ).toBe(true);
    expect((await get("/api/v2/addresses/0x123/internal-transactions")).status).toBe(422);
    const badFilter = await get(`/api/v2/addresses/${payee}/internal-transactions?filter=both`);
    expect(badFilter.status).toBe(422);
    expect(badFilter.body.errors[0]).toEqual({
      title: "Invalid value",
      source: { pointer: "/filter" },
      detail: "Invalid value for enum",
    });
    expect(
      (await get("/api/v2/addresses/0x000000000000000000000000000000000000dEaD/internal-transactions")).body,
    ).toEqual({
      items: [],
      next_page_params: null,
    });
  });
});
