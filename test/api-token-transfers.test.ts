import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";

type Item = {
  block_number: number;
  log_index: number;
  transaction_hash: string;
  token: { address_hash: string; type: string };
  token_type: string;
  total: { token_id?: string | null; value?: string | null; decimals?: string | null };
  from: { hash: string };
  to: { hash: string };
  type: string;
};

describe.each(databaseKinds)("token transfer lists on %s", (kind) => {
  const scenario = JSON.parse(inject("demoScenario"));
  let test: TestDatabase;
  let app: FastifyInstance;

  type ListedTransaction = {
    hash: string;
    created_contract: { hash: string } | null;
    transaction_types: string[];
    token_transfers: Item[];
    token_transfers_overflow: boolean;
  };

  /** Every item of a list, following next_page_params as a client would, with the page sizes seen. */
  async function walk<T = Item>(path: string) {
    const items: T[] = [];
    const sizes: number[] = [];
    let params: Record<string, unknown> | null = {};
    while (params) {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
      const response = await app.inject(`${path}${path.includes("?") ? "&" : "?"}${query}`);
      expect(response.statusCode).toBe(200);
      const body: { items: T[]; next_page_params: Record<string, unknown> | null } = response.json();
      items.push(...body.items);
      sizes.push(body.items.length);
      params = body.next_page_params;
    }
    return { items, sizes };
  }

  /** Every transaction of an address, through all pages of endpoint 2. */
  async function walkTransactions(address: string): Promise<ListedTransaction[]> {
    return (await walk<ListedTransaction>(`/api/v2/addresses/${address}/transactions`)).items;
  }

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    const client = createRpcClient({ url: inject("demoRpcUrl") });
    const indexer = createIndexer({ client, db: test.db, logger: createLogger("silent") });
    await indexer.prepare();
    await indexer.catchUp(BigInt(scenario.headBlockNumber));
    app = await createApiServer({ db: test.db });
  });
  afterAll(async () => {
    await app?.close();
    await test?.drop();
  });

  it("lists every transfer once, newest first, a batch as one item per id", async () => {
    const [{ expected }] = await test.db.query<{ expected: number }>(
      "SELECT sum(greatest(cardinality(token_ids), cardinality(amounts)))::int AS expected FROM token_transfers",
    );
    const { items, sizes } = await walk("/api/v2/token-transfers");
    expect(items).toHaveLength(expected);
    expect(sizes.slice(0, -1).every((size) => size === 50)).toBe(true);
    const keys = items.map((item) => `${item.block_number}/${item.log_index}/${item.total.token_id ?? ""}`);
    expect(new Set(keys).size).toBe(items.length);
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1], items[i]];
      expect(
        a.block_number > b.block_number || (a.block_number === b.block_number && a.log_index >= b.log_index),
      ).toBe(true);
    }
    const batchOfTen = items.filter(
      (item) => item.transaction_hash === scenario.examples.multiTokenBatchOfTen,
    );
    expect(batchOfTen).toHaveLength(10);
    expect(new Set(batchOfTen.map((item) => item.log_index)).size).toBe(1);
  });

  it("resumes inside a batch that a page boundary cuts", async () => {
    const { items } = await walk("/api/v2/token-transfers?type=ERC-1155");
    expect(items.length).toBeGreaterThan(50);
    expect(items.every((item) => item.token_type === "ERC-1155")).toBe(true);
    const first = (await app.inject("/api/v2/token-transfers?type=ERC-1155")).json();
    const last = first.items[49];
    const cursor = first.next_page_params;
    if (cursor.index_in_batch !== undefined) {
      const next = (
        await app.inject(`/api/v2/token-transfers?type=ERC-1155&${new URLSearchParams(cursor)}`)
      ).json();
      expect(next.items[0].log_index).toBe(last.log_index);
    }
    const [{ flat }] = await test.db.query<{ flat: number }>(
      "SELECT sum(cardinality(token_ids))::int AS flat FROM token_transfers t JOIN tokens k ON k.address = t.token_address WHERE k.type = 'ERC-1155'",
    );
    expect(items).toHaveLength(flat);
  });

  it("renders each token type's total and the mint, burn and transfer types", async () => {
    const { items } = await walk("/api/v2/token-transfers");
    const byType = (type: string) => items.find((item) => item.token_type === type) as Item;
    expect(Object.keys(byType("ERC-20").total).sort()).toEqual(["decimals", "value"]);
    expect(byType("ERC-20").total.decimals).toBe("18");
    expect(Object.keys(byType("ERC-721").total).sort()).toEqual(["token_id", "token_instance"]);
    expect(Object.keys(byType("ERC-1155").total).sort()).toEqual([
      "decimals",
      "token_id",
      "token_instance",
      "value",
    ]);
    expect(byType("ERC-404")).toBeDefined();
    expect(new Set(items.map((item) => item.type))).toEqual(
      new Set(["token_minting", "token_burning", "token_transfer"]),
    );
    const burn = items.find((item) => item.transaction_hash === scenario.examples.tokenBurn) as Item;
    expect(burn.type).toBe("token_burning");
    expect(burn.to.hash).toBe("0x0000000000000000000000000000000000000000");
  });

  it("lists an address's transfers in either direction, filtered by direction, token and type", async () => {
    const account = scenario.accounts[1].toLowerCase();
    const all = (await walk(`/api/v2/addresses/${account}/token-transfers`)).items;
    expect(all.length).toBeGreaterThan(50);
    expect(
      all.every((item) => item.from.hash.toLowerCase() === account || item.to.hash.toLowerCase() === account),
    ).toBe(true);
    const from = (await walk(`/api/v2/addresses/${account}/token-transfers?filter=from`)).items;
    const to = (await walk(`/api/v2/addresses/${account}/token-transfers?filter=to`)).items;
    expect(from.every((item) => item.from.hash.toLowerCase() === account)).toBe(true);
    expect(to.every((item) => item.to.hash.toLowerCase() === account)).toBe(true);
    const selfTransfers = all.filter((item) => item.from.hash === item.to.hash).length;
    expect(from.length + to.length - selfTransfers).toBe(all.length);
    const token = scenario.contracts.token.toLowerCase();
    const ofToken = (await walk(`/api/v2/addresses/${account}/token-transfers?token=${token}`)).items;
    expect(ofToken.length).toBeGreaterThan(0);
    expect(ofToken.every((item) => item.token.address_hash.toLowerCase() === token)).toBe(true);
    const nfts = (await walk(`/api/v2/addresses/${account}/token-transfers?type=[erc-721,ERC-1155]`)).items;
    expect(nfts.every((item) => ["ERC-721", "ERC-1155"].includes(item.token.type))).toBe(true);
  });

  it("fills the transaction list's token fields: first ten transfers, overflow and types", async () => {
    const creation = (await walkTransactions(scenario.accounts[0])).find(
      (item) => item.created_contract?.hash === scenario.contracts.token,
    );
    expect(creation?.transaction_types).toEqual(["contract_creation", "token_creation"]);
    const batch = (await walk("/api/v2/token-transfers")).items.filter(
      (item) => item.transaction_hash === scenario.examples.multiTokenBatchOfTen,
    );
    const [{ hash: sender }] = await test.db.query<{ hash: string }>(
      "SELECT '0x' || encode(from_address, 'hex') AS hash FROM transactions WHERE hash = $1",
      [Buffer.from(scenario.examples.multiTokenBatchOfTen.slice(2), "hex")],
    );
    const ofSender = await walkTransactions(sender);
    const withTransfers = ofSender.filter(
      (item: { token_transfers: Item[] }) => item.token_transfers.length > 0,
    );
    expect(withTransfers.length).toBeGreaterThan(0);
    for (const item of withTransfers) {
      expect(item.transaction_types).toContain("token_transfer");
      expect(item.token_transfers.length).toBeLessThanOrEqual(10);
      expect(item.token_transfers.every((transfer: Item) => transfer.transaction_hash === item.hash)).toBe(
        true,
      );
    }
    const listed = ofSender.find(
      (item: { hash: string }) => item.hash === scenario.examples.multiTokenBatchOfTen,
    );
    expect(listed?.token_transfers).toEqual(batch);
    expect(listed?.token_transfers_overflow).toBe(false);
    const plain = ofSender.find((item: { token_transfers: Item[] }) => item.token_transfers.length === 0);
    expect(plain?.transaction_types ?? []).not.toContain("token_transfer");
  });

  it("answers bad parameters with 422 and an unknown address with an empty page", async () => {
    const badType = await app.inject("/api/v2/token-transfers?type=ERC-9999");
    expect(badType.statusCode).toBe(422);
    expect(badType.json().errors[0].source.pointer).toBe("/type");
    expect((await app.inject("/api/v2/addresses/0x12/token-transfers")).statusCode).toBe(422);
    expect(
      (await app.inject(`/api/v2/addresses/${scenario.accounts[0]}/token-transfers?token=0x1`)).statusCode,
    ).toBe(422);
    const empty = await app.inject(
      "/api/v2/addresses/0x000000000000000000000000000000000000dEaD/token-transfers",
    );
    expect(empty.json()).toEqual({ items: [], next_page_params: null });
  });
});
