import type { FastifyInstance } from "fastify";
import { type Hex, keccak256, pad, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { databaseKinds } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";
import { transact } from "./support/transact.ts";

// A contract that emits LOG2(topic0 = calldata[0:32], topic1 = calldata[32:64]) with calldata[64:96] as data.
const emitterInitCode = "0x6012600c60003960126000f360403560005260203560003560206000a200";
const ping = keccak256(toHex("Ping(uint256)"));
const tagX = pad("0x0a", { size: 32 });
const tagY = pad("0x0b", { size: 32 });
// tagX's last 8 bytes under a different first byte: the topic indexes key on the last 8 bytes only.
const lookalike = `0x01${tagX.slice(4)}` as Hex;

type Fixture = { a: Hex; b: Hex; sender: Hex; emitter: Hex; creation: Hex; twin: Hex };

async function send(client: RpcClient, transaction: Record<string, unknown>): Promise<Hex> {
  const hash = await client.request<Hex>("eth_sendTransaction", [transaction]);
  return hash;
}

/** A has 51 transactions: 30 sent to B (values 1..30 wei) and 21 received from B (values 101..121). */
async function buildChain(client: RpcClient): Promise<Fixture> {
  const accounts = await client.request<Hex[]>("eth_accounts");
  const [a, b, sender] = [at(accounts, 1), at(accounts, 2), at(accounts, 3)];
  const { hash: creation, contractAddress: emitter } = await transact(client, {
    from: sender,
    data: emitterInitCode,
  });
  for (let i = 1; i <= 30; i++) await send(client, { from: a, to: b, value: toHex(i) });
  for (let i = 1; i <= 21; i++) await send(client, { from: b, to: a, value: toHex(100 + i) });
  for (let i = 0; i < 51; i++) {
    const data = `0x${ping.slice(2)}${(i % 3 === 0 ? tagX : tagY).slice(2)}${pad(toHex(i), { size: 32 }).slice(2)}`;
    await send(client, { from: sender, to: emitter, data, gas: "0x30000" });
  }
  // A second emitter: one log with tagX at two positions, one with the lookalike, one with tagX.
  const { contractAddress: twin } = await transact(client, { from: sender, data: emitterInitCode });
  for (const [topic0, topic1] of [
    [tagX, tagX],
    [ping, lookalike],
    [ping, tagX],
  ] as const) {
    const data: Hex = `0x${topic0.slice(2)}${topic1.slice(2)}${pad("0x01", { size: 32 }).slice(2)}`;
    // Waited for: nothing after these would show that the node mined them before the chain is indexed.
    await transact(client, { from: sender, to: twin as Hex, data, gas: "0x30000" });
  }
  return { a, b, sender, emitter: emitter as Hex, creation, twin: twin as Hex };
}

describe.each(databaseKinds)("address lists on %s", (kind) => {
  let anvil: Anvil;
  let indexed: IndexedChain;
  let app: FastifyInstance;
  let chain: Fixture;
  const get = async (url: string) => {
    const response = await app.inject(url);
    return { status: response.statusCode, body: response.json(), headers: response.headers };
  };
  const query = (params: Record<string, unknown>) =>
    new URLSearchParams(
      Object.entries(params).map(([key, value]) => [key, value === null ? "null" : String(value)]),
    );

  beforeAll(async () => {
    anvil = await startAnvil();
    const client = createRpcClient({ url: anvil.rpcUrl });
    chain = await buildChain(client);
    indexed = await indexIntoNewDatabase(kind, client, { rangeSize: 16 });
    app = indexed.app;
  });
  afterAll(async () => {
    await indexed?.close();
    await anvil?.stop();
  });

  describe("/addresses/{hash}/transactions", () => {
    it("pages 51 transactions as 50 and a cursor, then 1 and null, newest first", async () => {
      const first = await get(`/api/v2/addresses/${chain.a}/transactions`);
      expect(first.status).toBe(200);
      expect(first.body.items).toHaveLength(50);
      const cursor = first.body.next_page_params;
      const last = first.body.items[49];
      expect(cursor).toEqual({
        block_number: last.block_number,
        index: last.position,
        items_count: 50,
        hash: last.hash,
        inserted_at: last.timestamp,
        value: last.value,
        fee: last.fee.value,
      });
      const keys = first.body.items.map((item: { block_number: number; position: number }) => [
        item.block_number,
        item.position,
      ]);
      expect(keys).toEqual([...keys].sort((x, y) => y[0] - x[0] || y[1] - x[1]));
      const second = await get(`/api/v2/addresses/${chain.a}/transactions?${query(cursor)}`);
      expect(second.body.items).toHaveLength(1);
      expect(second.body.next_page_params).toBeNull();
      const all = [...first.body.items, ...second.body.items].map((item: { hash: string }) => item.hash);
      expect(new Set(all).size).toBe(51);
    });

    it("renders each transaction with every field of the contract", async () => {
      const { body } = await get(`/api/v2/addresses/${chain.a}/transactions?filter=from`);
      const item = body.items[0];
      expect(item.from.hash).toBe(
        chain.a.toLowerCase() === item.from.hash.toLowerCase() ? item.from.hash : "mismatch",
      );
      expect(item.from.hash).toMatch(/[A-F]/); // checksummed
      expect(item).toMatchObject({
        value: "30",
        status: "ok",
        result: "success",
        type: 2,
        method: null,
        transaction_types: ["coin_transfer"],
        token_transfers: [],
        token_transfers_overflow: false,
        actions: [],
        decoded_input: null,
        created_contract: null,
        confirmation_duration: [0, expect.any(Number)],
        fee: { type: "actual", value: expect.stringMatching(/^[1-9][0-9]*$/) },
      });
      expect(item.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(typeof item.gas_limit).toBe("number");
      expect(item.confirmations).toBeGreaterThan(1);
      for (const key of [
        "hash",
        "nonce",
        "position",
        "gas_used",
        "gas_price",
        "base_fee_per_gas",
        "priority_fee",
        "transaction_burnt_fee",
        "raw_input",
        "revert_reason",
        "exchange_rate",
        "transaction_tag",
        "has_error_in_internal_transactions",
        "max_fee_per_gas",
        "max_priority_fee_per_gas",
      ]) {
        expect(item, key).toHaveProperty(key);
      }
      expect(Object.keys(item.to).sort()).toEqual([
        "ens_domain_name",
        "hash",
        "implementation_name",
        "implementations",
        "is_contract",
        "is_scam",
        "is_verified",
        "metadata",
        "name",
        "private_tags",
        "proxy_type",
        "public_tags",
        "reputation",
        "watchlist_names",
      ]);
    });

    it("filters to and from", async () => {
      const from = await get(`/api/v2/addresses/${chain.a}/transactions?filter=from`);
      const to = await get(`/api/v2/addresses/${chain.a}/transactions?filter=to`);
      expect(from.body.items).toHaveLength(30);
      expect(to.body.items).toHaveLength(21);
      expect(
        from.body.items.every((item: { from: { hash: string } }) => item.from.hash.toLowerCase() === chain.a),
      ).toBe(true);
      expect(
        to.body.items.every((item: { to: { hash: string } }) => item.to.hash.toLowerCase() === chain.a),
      ).toBe(true);
    });

    it("lists a contract's creation under filter=to with created_contract", async () => {
      const { body } = await get(
        `/api/v2/addresses/${chain.emitter}/transactions?filter=to&sort=block_number&order=asc`,
      );
      const creation = body.items[0];
      expect(creation.hash).toBe(chain.creation);
      expect(creation.to).toBeNull();
      expect(creation.created_contract).toMatchObject({ is_contract: true });
      expect(creation.created_contract.hash.toLowerCase()).toBe(chain.emitter.toLowerCase());
      expect(creation.transaction_types).toEqual(["contract_creation"]);
      const calls = body.items.filter((item: { hash: string }) => item.hash !== chain.creation);
      expect(
        calls.every(
          (item: { method: string; transaction_types: string[] }) =>
            item.method === ping.slice(0, 10) && item.transaction_types.includes("contract_call"),
        ),
      ).toBe(true);
      const fromOnly = await get(`/api/v2/addresses/${chain.emitter}/transactions?filter=from`);
      expect(fromOnly.body.items).toHaveLength(0);
    });

    it.each([
      ["value", "desc"],
      ["value", "asc"],
      ["fee", "desc"],
      ["block_number", "asc"],
    ])("sorts by %s %s across pages without repeating or skipping", async (sort, order) => {
      const first = await get(`/api/v2/addresses/${chain.a}/transactions?sort=${sort}&order=${order}`);
      expect(first.body.items).toHaveLength(50);
      const second = await get(
        `/api/v2/addresses/${chain.a}/transactions?${query({ sort, order, ...first.body.next_page_params })}`,
      );
      expect(second.body.next_page_params).toBeNull();
      const items = [...first.body.items, ...second.body.items];
      expect(new Set(items.map((item: { hash: string }) => item.hash)).size).toBe(51);
      const key = (item: { value: string; fee: { value: string }; block_number: number }) =>
        BigInt(sort === "value" ? item.value : sort === "fee" ? item.fee.value : item.block_number);
      for (let i = 1; i < items.length; i++) {
        const [previous, current] = [key(items[i - 1]), key(items[i])];
        expect(order === "desc" ? previous >= current : previous <= current).toBe(true);
      }
      if (sort === "value") expect(items[0].value).toBe(order === "desc" ? "121" : "1");
    });

    it.each([
      ["value", "asc"],
      ["value", "desc"],
      ["fee", "asc"],
      ["fee", "desc"],
    ])(
      "breaks ties of a sort by %s %s newest first, as Blockscout does, across pages",
      async (sort, order) => {
        /** Every page, each cursor sent back as Blockscout's frontend sends it. */
        const walk = async (path: string) => {
          const items: {
            hash: string;
            block_number: number;
            position: number;
            value: string;
            fee: { value: string };
          }[] = [];
          let next: Record<string, unknown> | null = {};
          while (next !== null) {
            const page = await get(`${path}&${query(JSON.parse(JSON.stringify(next)))}`);
            expect(page.status).toBe(200);
            items.push(...page.body.items);
            next = page.body.next_page_params;
          }
          return items;
        };
        // The sender's 56 transactions all move no value: one tie over two pages, cut inside it.
        for (const address of [chain.sender, chain.a]) {
          const items = await walk(`/api/v2/addresses/${address}/transactions?sort=${sort}&order=${order}`);
          const key = (item: (typeof items)[number]) =>
            BigInt(sort === "value" ? item.value : item.fee.value);
          const expected = [...items].sort((x, y) => {
            const byKey = key(x) === key(y) ? 0 : key(x) < key(y) === (order === "asc") ? -1 : 1;
            return byKey || y.block_number - x.block_number || y.position - x.position;
          });
          expect(items.map((item) => item.hash)).toEqual(expected.map((item) => item.hash));
          expect(new Set(items.map((item) => item.hash)).size).toBe(address === chain.a ? 51 : 56);
        }
      },
    );

    it("accepts cursors sent as strings, null, empty or partial", async () => {
      const first = await get(`/api/v2/addresses/${chain.a}/transactions`);
      const { block_number, index, hash } = first.body.next_page_params;
      const nulls = await get(
        `/api/v2/addresses/${chain.a}/transactions?block_number=null&index=null&hash=null&items_count=50`,
      );
      const empties = await get(
        `/api/v2/addresses/${chain.a}/transactions?block_number=&index=&value=&fee=&hash=`,
      );
      expect(nulls.body).toEqual(first.body);
      expect(empties.body).toEqual(first.body);
      const partial = await get(`/api/v2/addresses/${chain.a}/transactions?block_number=${block_number}`);
      expect(partial.status).toBe(200);
      expect(
        partial.body.items.every((item: { block_number: number }) => item.block_number < block_number),
      ).toBe(true);
      const byHash = await get(`/api/v2/addresses/${chain.a}/transactions?hash=${hash}&items_count=50`);
      expect(byHash.body.items.map((item: { hash: string }) => item.hash)).toEqual(
        (
          await get(`/api/v2/addresses/${chain.a}/transactions?block_number=${block_number}&index=${index}`)
        ).body.items.map((item: { hash: string }) => item.hash),
      );
    });

    it("takes a block number or an index beyond any transaction's as standing past it", async () => {
      const path = `/api/v2/addresses/${chain.a}/transactions`;
      const first = await get(path);
      const largest = `block_number=${"9".repeat(18)}&index=${"9".repeat(9)}`;
      expect((await get(`${path}?${largest}`)).body).toEqual(first.body);
      const oldestFirst = await get(`${path}?sort=block_number&order=asc&${largest}`);
      expect(oldestFirst.status).toBe(200);
      expect(oldestFirst.body).toEqual({ items: [], next_page_params: null });
      // Each of A's transactions is alone in its block: past every index of one, the page starts with it.
      const item = first.body.items[10];
      const beyond = await get(`${path}?block_number=${item.block_number}&index=${2 ** 24 + 1}`);
      expect(beyond.body.items[0].hash).toBe(item.hash);
      expect(beyond.body).toEqual(
        (await get(`${path}?block_number=${item.block_number}&index=${"9".repeat(9)}`)).body,
      );
    });

    it("reads a key sent twice as Blockscout does: its last value", async () => {
      const path = `/api/v2/addresses/${chain.a}/transactions`;
      const twice = await get(`${path}?filter=from&filter=to&items_count=50&items_count=50`);
      expect(twice.status).toBe(200);
      expect(twice.body).toEqual((await get(`${path}?filter=to&items_count=50`)).body);
      const first = await get(path);
      const { block_number, index } = first.body.next_page_params;
      const resent = await get(`${path}?block_number=1&index=0&block_number=${block_number}&index=${index}`);
      expect(resent.body).toEqual((await get(`${path}?block_number=${block_number}&index=${index}`)).body);
    });

    it("answers an unknown address with an empty page", async () => {
      const { status, body } = await get(
        "/api/v2/addresses/0x000000000000000000000000000000000000dEaD/transactions",
      );
      expect(status).toBe(200);
      expect(body).toEqual({ items: [], next_page_params: null });
    });

    it("answers a malformed address with 422 and Blockscout's error body", async () => {
      const { status, body, headers } = await get("/api/v2/addresses/0x/transactions");
      expect(status).toBe(422);
      expect(headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(body).toEqual({
        errors: [
          {
            title: "Invalid value",
            source: { pointer: "/address_hash_param" },
            detail: "Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/",
          },
        ],
      });
    });

    it("answers bad sort, order and filter values with one 422 entry each", async () => {
      const { status, body } = await get(
        `/api/v2/addresses/${chain.a}/transactions?sort=foo&order=bar&filter=sideways`,
      );
      expect(status).toBe(422);
      expect(body.errors).toEqual(
        expect.arrayContaining(
          ["/sort", "/order", "/filter"].map((pointer) => ({
            title: "Invalid value",
            source: { pointer },
            detail: "Invalid value for enum",
          })),
        ),
      );
      expect(body.errors).toHaveLength(3);
    });

    it("rejects unknown query parameters but accepts the ones clients send", async () => {
      const unknown = await get(`/api/v2/addresses/${chain.a}/transactions?foo=1`);
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors[0]).toEqual({
        title: "Invalid value",
        source: { pointer: "/foo" },
        detail: "Unexpected field: foo",
      });
      const known = await get(
        `/api/v2/addresses/${chain.a}/transactions?apikey=k&key=k&items_count=50&inserted_at=2024-01-01T00:00:00.000000Z`,
      );
      expect(known.status).toBe(200);
      const badNumber = await get(`/api/v2/addresses/${chain.a}/transactions?block_number=abc`);
      expect(badNumber.status).toBe(422);
      expect(badNumber.body.errors[0].source.pointer).toBe("/block_number");
    });
  });

  describe("/addresses/{hash}/logs", () => {
    it("pages 51 logs as 50 and a cursor, then 1 and null", async () => {
      const first = await get(`/api/v2/addresses/${chain.emitter}/logs`);
      expect(first.body.items).toHaveLength(50);
      const last = first.body.items[49];
      expect(first.body.next_page_params).toEqual({
        block_number: last.block_number,
        index: last.index,
        items_count: 50,
      });
      const second = await get(
        `/api/v2/addresses/${chain.emitter}/logs?${query(first.body.next_page_params)}`,
      );
      expect(second.body.items).toHaveLength(1);
      expect(second.body.next_page_params).toBeNull();
      const data = [...first.body.items, ...second.body.items].map((item: { data: string }) =>
        Number(BigInt(item.data)),
      );
      expect(data).toEqual(Array.from({ length: 51 }, (_, i) => 50 - i));
    });

    it("renders a log with both address keys, four topics and its transaction's contract", async () => {
      const { body } = await get(`/api/v2/addresses/${chain.emitter}/logs`);
      const item = body.items[0];
      expect(item.address).toEqual(item.address_hash);
      expect(item.address).toMatchObject({ is_contract: true });
      expect(item.smart_contract.hash).toBe(item.address.hash);
      // The newest log is the 51st call (i = 50), tagged Y.
      expect(item.topics).toEqual([ping, tagY, null, null]);
      expect(item.decoded).toBeNull();
      expect(item.block_timestamp).toMatch(/\.\d{6}Z$/);
      expect(item.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(item.block_hash).toMatch(/^0x[0-9a-f]{64}$/);
    });

    it("filters by a topic at any position", async () => {
      const x = await get(`/api/v2/addresses/${chain.emitter}/logs?topic=${tagX}`);
      expect(x.body.items).toHaveLength(17);
      expect(x.body.items.every((item: { topics: string[] }) => item.topics[1] === tagX)).toBe(true);
      const upper = await get(
        `/api/v2/addresses/${chain.emitter}/logs?topic=${ping.toUpperCase().replace("0X", "0x")}`,
      );
      expect(upper.body.items).toHaveLength(50);
      const rest = await get(
        `/api/v2/addresses/${chain.emitter}/logs?topic=${ping}&${query(upper.body.next_page_params)}`,
      );
      expect(rest.body.items.map((item: { data: string }) => Number(BigInt(item.data)))).toEqual([0]);
      expect(rest.body.next_page_params).toBeNull();
      // A log with the topic at two positions comes once; one whose topic only ends like it does not come.
      const twin = await get(`/api/v2/addresses/${chain.twin}/logs?topic=${tagX}`);
      expect(twin.body.items.map((item: { topics: string[] }) => item.topics.slice(0, 2))).toEqual([
        [ping, tagX],
        [tagX, tagX],
      ]);
      const similar = await get(`/api/v2/addresses/${chain.twin}/logs?topic=${lookalike}`);
      expect(similar.body.items.map((item: { topics: string[] }) => item.topics[1])).toEqual([lookalike]);
      const bad = await get(`/api/v2/addresses/${chain.emitter}/logs?topic=0x1234`);
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].source.pointer).toBe("/topic");
    });

    it("answers an unknown address with an empty page and a bad one with 422", async () => {
      expect((await get(`/api/v2/addresses/${chain.a}/logs`)).body).toEqual({
        items: [],
        next_page_params: null,
      });
      expect((await get("/api/v2/addresses/0x123/logs")).status).toBe(422);
    });
  });

  it("sends CORS, request ids and Blockscout's fallback for unknown actions", async () => {
    const response = await app.inject({
      url: `/api/v2/addresses/${chain.a}/logs`,
      headers: { origin: "http://example.org" },
    });
    expect(response.headers["access-control-allow-origin"]).toBe("*");
    expect(response.headers["x-request-id"]).toBeTruthy();
    const preflight = await app.inject({
      method: "OPTIONS",
      url: `/api/v2/addresses/${chain.a}/logs`,
      headers: { origin: "http://example.org", "access-control-request-method": "GET" },
    });
    expect(preflight.statusCode).toBe(204);
    const unknown = await get("/api/v2/no-such-thing");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ message: "Unknown API v2 action" });
  });
});
