import type { FastifyInstance } from "fastify";
import { type AbiFunction, toFunctionSelector } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { writeContractAbi } from "../src/db/import-abis.ts";
import { migrate } from "../src/db/migrate.ts";
import { compileDemoContracts } from "../src/demo/compile.ts";
import { createMetadataFetcher } from "../src/indexer/create-metadata-fetcher.ts";
import { readTokenMetadata } from "../src/indexer/read-token-metadata.ts";
import { createLogger } from "../src/logger.ts";
import { required } from "../src/required.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { databaseKinds, type TestDatabase } from "./support/databases.ts";
import { at, only } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";

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
  let indexed: IndexedChain;
  let app: FastifyInstance;

  type ListedTransaction = {
    hash: string;
    created_contract: { hash: string } | null;
    transaction_types: string[];
    token_transfers: Item[];
    token_transfers_overflow: boolean;
  };

  /** Every item of a list, following next_page_params as a client would, with the page sizes seen. */
  async function walk<T = Item>(path: string, server = app) {
    const items: T[] = [];
    const sizes: number[] = [];
    let params: Record<string, unknown> | null = {};
    while (params) {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
      const response = await server.inject(`${path}${path.includes("?") ? "&" : "?"}${query}`);
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
    indexed = await indexIntoNewDatabase(kind, createRpcClient({ url: inject("demoRpcUrl") }), {
      head: BigInt(scenario.headBlockNumber),
    });
    ({ test, app } = indexed);
  });
  afterAll(() => indexed?.close());

  it("lists every transfer once, newest first, a batch as one item per id", async () => {
    const { expected } = only(
      await test.db.query<{ expected: number }>(
        "SELECT sum(greatest(cardinality(token_ids), cardinality(amounts)))::int AS expected FROM token_transfers",
      ),
    );
    const { items, sizes } = await walk("/api/v2/token-transfers");
    expect(items).toHaveLength(expected);
    expect(sizes.slice(0, -1).every((size) => size === 50)).toBe(true);
    const keys = items.map((item) => `${item.block_number}/${item.log_index}/${item.total.token_id ?? ""}`);
    expect(new Set(keys).size).toBe(items.length);
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [at(items, i - 1), at(items, i)];
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
    const { flat } = only(
      await test.db.query<{ flat: number }>(
        "SELECT sum(cardinality(token_ids))::int AS flat FROM token_transfers t JOIN tokens k ON k.address = t.token_address WHERE k.type = 'ERC-1155'",
      ),
    );
    expect(items).toHaveLength(flat);
  });

  it("reads a cursor's index_in_batch of 0 as its transfer's first id listed, never listing it again", async () => {
    const first = (await app.inject("/api/v2/token-transfers")).json();
    const last = first.items.at(-1);
    const key = (item: Item) => `${item.block_number}/${item.log_index}/${item.total.token_id ?? ""}`;
    const resumed = async (indexInBatch: string) =>
      (
        await app.inject(
          `/api/v2/token-transfers?block_number=${last.block_number}&index=${last.log_index}&index_in_batch=${indexInBatch}`,
        )
      ).json().items as Item[];
    const [zero, one] = [await resumed("0"), await resumed("1")];
    expect(zero.map(key)).not.toContain(key(last));
    expect(zero.map(key)).toEqual(one.map(key));
  });

  it("marks an id unique exactly when one holder has its only unit", async () => {
    const { items } = await walk<Item & { total: { token_instance: { is_unique: boolean } | null } }>(
      "/api/v2/token-transfers?type=ERC-721,ERC-1155,ERC-404",
    );
    // What the balances say, counted here: the API reads counters kept with them.
    const unique = new Set(
      (
        await test.db.query<{ key: string }>(
          `SELECT '0x' || encode(token_address, 'hex') || '/' || token_id::text AS key FROM token_balances
           WHERE token_id >= 0 AND value > 0 GROUP BY token_address, token_id
           HAVING count(*) = 1 AND sum(value) = 1`,
        )
      ).map((row) => row.key),
    );
    const shown = items.filter((item) => item.total.token_id != null);
    expect(shown.length).toBeGreaterThan(0);
    const marks = shown.map((item) => ({
      id: `${item.token.address_hash.toLowerCase()}/${item.total.token_id}`,
      is_unique: item.total.token_instance?.is_unique,
    }));
    expect(marks).toEqual(marks.map(({ id }) => ({ id, is_unique: unique.has(id) })));
    expect(new Set(marks.map((mark) => mark.is_unique))).toEqual(new Set([true, false]));
  });

  it("renders each token type's total and the mint, burn and transfer types", async () => {
    const { items } = await walk("/api/v2/token-transfers");
    const byType = (type: string) => items.find((item) => item.token_type === type) as Item;
    expect(Object.keys(byType("ERC-20").total).sort()).toEqual(["decimals", "value"]);
    expect(byType("ERC-20").total.decimals).toBe("18");
    expect(Object.keys(byType("ERC-721").total).sort()).toEqual([
      "decimals",
      "token_id",
      "token_instance",
      "value",
    ]);
    expect(byType("ERC-721").total).toMatchObject({ decimals: null, value: "1" });
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
    // The token's own ranges by sender and by recipient give exactly the address's transfers of it.
    expect(ofToken).toEqual(all.filter((item) => item.token.address_hash.toLowerCase() === token));
    const ofTokenFrom = (
      await walk(`/api/v2/addresses/${account}/token-transfers?token=${token}&filter=from`)
    ).items;
    const ofTokenTo = (await walk(`/api/v2/addresses/${account}/token-transfers?token=${token}&filter=to`))
      .items;
    expect(ofTokenFrom).toEqual(from.filter((item) => item.token.address_hash.toLowerCase() === token));
    expect(ofTokenTo).toEqual(to.filter((item) => item.token.address_hash.toLowerCase() === token));
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
    const { hash: sender } = only(
      await test.db.query<{ hash: string }>(
        "SELECT '0x' || encode(from_address, 'hex') AS hash FROM transactions WHERE hash = $1",
        [Buffer.from(scenario.examples.multiTokenBatchOfTen.slice(2), "hex")],
      ),
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

  it("reads bytes32 names and leaves unreadable ones null", async () => {
    const tokens = await test.db.query<{
      address: string;
      name: string | null;
      symbol: string | null;
      decimals: number | null;
    }>("SELECT '0x' || encode(address, 'hex') AS address, name, symbol, decimals FROM tokens");
    const of = (address: string) => tokens.find((token) => token.address === address.toLowerCase());
    expect(of(scenario.contracts.bytes32Token)).toMatchObject({
      name: "Sextant Bytes32 Token",
      symbol: "SB32",
    });
    expect(of(scenario.contracts.revertingNameToken)).toMatchObject({
      name: null,
      symbol: null,
      decimals: 18,
    });
    expect(of(scenario.contracts.token)).toMatchObject({
      name: "Sextant Demo Token",
      symbol: "SDT",
      decimals: 18,
    });
    // ERC-165 as the contracts answer it (OpenZeppelin's ERC-721 and ERC-1155 declare theirs).
    const head = BigInt(scenario.headBlockNumber);
    const readings = await readTokenMetadata(createRpcClient({ url: inject("demoRpcUrl") }), {
      block: { number: head },
      tokens: [scenario.contracts.collectible, scenario.contracts.multiToken, scenario.contracts.token].map(
        (address: string) => ({ address: address.toLowerCase() as `0x${string}`, describe: true }),
      ),
    });
    const answers = [...readings.values()];
    const [collectible, multiToken, token] = [at(answers, 0), at(answers, 1), at(answers, 2)];
    expect([collectible.supportsErc721, collectible.supportsErc1155]).toEqual([true, false]);
    expect([multiToken.supportsErc721, multiToken.supportsErc1155]).toEqual([false, true]);
    expect([token.supportsErc721, token.supportsErc1155]).toEqual([null, null]);
  });

  it("counts as holders exactly the accounts whose balanceOf is above zero", async () => {
    const token = scenario.contracts.token;
    const client = createRpcClient({ url: inject("demoRpcUrl") });
    const accounts = (
      await test.db.query<{ hash: string }>("SELECT '0x' || encode(hash, 'hex') AS hash FROM addresses")
    ).map((row) => row.hash);
    const answers = await client.batch<string>(
      accounts.map((account) => ({
        method: "eth_call",
        params: [
          { to: token, data: `0x70a08231${account.slice(2).padStart(64, "0")}` },
          `0x${BigInt(scenario.headBlockNumber).toString(16)}`,
        ],
      })),
    );
    const holders = answers.filter((answer) => BigInt(answer) > 0n).length;
    const { items } = (await app.inject(`/api/v2/tokens/${token}/holders`)).json();
    expect(items.length).toBe(Math.min(holders, 50));
    expect(items[0].address.hash).toBeDefined();
    const transfer = at(
      (await walk(`/api/v2/addresses/${scenario.accounts[0]}/token-transfers?token=${token}`)).items,
      0,
    );
    expect(transfer.token).toMatchObject({ holders_count: String(holders) });
  });

  it("shows NFT metadata fetched from data: URIs once the fetcher ran", async () => {
    const fetcher = createMetadataFetcher({
      db: test.db,
      client: createRpcClient({ url: inject("demoRpcUrl") }),
      logger: createLogger("silent"),
    });
    while ((await fetcher.runOnce()) > 0) {}
    const collectible = scenario.contracts.collectible.toLowerCase();
    const { holder } = only(
      await test.db.query<{ holder: string }>(
        "SELECT '0x' || encode(holder, 'hex') AS holder FROM token_balances WHERE token_address = $1 AND value > 0 LIMIT 1",
        [Buffer.from(collectible.slice(2), "hex")],
      ),
    );
    const { items } = (await app.inject(`/api/v2/addresses/${holder}/nft/collections?type=ERC-721`)).json();
    const collection = items.find(
      (item: { token: { address_hash: string } }) => item.token.address_hash.toLowerCase() === collectible,
    );
    expect(collection.token_instances.length).toBeGreaterThan(0);
    for (const instance of collection.token_instances) {
      expect(instance.metadata).toMatchObject({ name: expect.any(String) });
      expect(instance.image_url).toMatch(/^data:image\/svg\+xml/);
    }
  });

  it("points the ipfs:// media links of transferred instances at the public IPFS gateway", async () => {
    const collectible = scenario.contracts.collectible.toLowerCase();
    const transfer = only(
      await test.db.query<{
        block_number: number;
        log_index: number;
        hash: string;
        from: string;
        sender: string;
        token_id: string;
        metadata: unknown;
        metadata_error: string | null;
      }>(
        `SELECT t.block_number::int AS block_number, t.log_index,
           '0x' || encode(tx.hash, 'hex') AS hash,
           '0x' || encode(t.from_address, 'hex') AS "from", '0x' || encode(tx.from_address, 'hex') AS sender,
           t.token_ids[1]::text AS token_id, i.metadata, i.metadata_error
         FROM token_transfers t
         JOIN transactions tx ON tx.block_number = t.block_number AND tx.index = t.transaction_index
         JOIN token_instances i ON i.token_address = t.token_address AND i.token_id = t.token_ids[1]
         WHERE t.token_address = $1 ORDER BY t.block_number DESC, t.log_index DESC LIMIT 1`,
        [Buffer.from(collectible.slice(2), "hex")],
      ),
    );
    // Sent as text: typed jsonb, the PostgreSQL driver would encode the JSON text once more, as a string.
    const setMetadata = (metadata: unknown, error: string | null) =>
      test.db.query(
        `UPDATE token_instances SET metadata = $3::text::jsonb, metadata_error = $4
         WHERE token_address = $1 AND token_id = $2::numeric`,
        [
          Buffer.from(collectible.slice(2), "hex"),
          transfer.token_id,
          metadata === null ? null : JSON.stringify(metadata),
          error,
        ],
      );
    const gatewayApp = await createApiServer({ db: test.db, ipfsPublicGateway: "https://cdn.test/ipfs" });
    await setMetadata({ image: "ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/1.png" }, null);
    try {
      const isTransfer = (item: Item) =>
        item.block_number === transfer.block_number && item.log_index === transfer.log_index;
      const instances = [
        ...(await walk("/api/v2/token-transfers?type=ERC-721", gatewayApp)).items,
        ...(await walk(`/api/v2/addresses/${transfer.from}/token-transfers?token=${collectible}`, gatewayApp))
          .items,
        ...(
          await walk<ListedTransaction>(`/api/v2/addresses/${transfer.sender}/transactions`, gatewayApp)
        ).items
          .filter((listed) => listed.hash === transfer.hash)
          .flatMap((listed) => listed.token_transfers),
      ]
        .filter(isTransfer)
        .map((item) => (item.total as { token_instance?: unknown }).token_instance);
      expect(instances).toHaveLength(3);
      for (const instance of instances) {
        expect(instance).toMatchObject({
          id: transfer.token_id,
          image_url: "https://cdn.test/ipfs/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/1.png",
          media_url: "ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/1.png",
        });
      }
    } finally {
      await setMetadata(transfer.metadata, transfer.metadata_error);
      await gatewayApp.close();
    }
  });

  it("takes Blockscout's limit: that many items and no next page up to a page, a page beyond", async () => {
    const list = async (query: string) => {
      const response = await app.inject(`/api/v2/token-transfers${query}`);
      expect(response.statusCode, query).toBe(200);
      return response.json() as {
        items: { block_number: number; log_index: number }[];
        next_page_params: unknown;
      };
    };
    const page = await list("");
    const ten = await list("?limit=10");
    expect(ten.items).toEqual(page.items.slice(0, 10));
    expect(ten.next_page_params).toBeNull();
    // Blockscout takes the limit's absolute value.
    expect((await list("?limit=-3")).items).toEqual(page.items.slice(0, 3));
    expect((await list("?limit=0")).items).toEqual([]);
    expect(await list("?limit=100")).toEqual(page);
    expect(await list("?limit=null")).toEqual(page);
    const bad = await app.inject("/api/v2/token-transfers?limit=ten");
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0]).toMatchObject({ source: { pointer: "/limit" } });
  });

  it("answers bad parameters with 422 and an unknown address with an empty page", async () => {
    const badType = await app.inject("/api/v2/token-transfers?type=ERC-9999");
    expect(badType.statusCode).toBe(422);
    expect(badType.json().errors[0].source.pointer).toBe("/type");
    // One entry (or Blockscout's three for `type`) per bad parameter, not only the first found.
    const twoBad = await app.inject(
      `/api/v2/addresses/${scenario.accounts[0]}/token-transfers?filter=sideways&type=ERC-9999`,
    );
    expect(twoBad.statusCode).toBe(422);
    expect(
      twoBad
        .json()
        .errors.map((error: { source: { pointer: string } }) => error.source.pointer)
        .sort(),
    ).toEqual(["/filter", "/type", "/type", "/type"]);
    expect((await app.inject("/api/v2/addresses/0x12/token-transfers")).statusCode).toBe(422);
    expect(
      (await app.inject(`/api/v2/addresses/${scenario.accounts[0]}/token-transfers?token=0x1`)).statusCode,
    ).toBe(422);
    const empty = await app.inject(
      "/api/v2/addresses/0x000000000000000000000000000000000000dEaD/token-transfers",
    );
    expect(empty.json()).toEqual({ items: [], next_page_params: null });
  });

  it("names a transfer's method with the called contract's imported ABI, as the transaction's", async () => {
    // A transfer made by a function no built-in ABI knows shows its selector until the contract's ABI is imported.
    const unnamed = (await walk("/api/v2/token-transfers")).items.find((item) =>
      /^0x[0-9a-f]{8}$/.test(String((item as { method?: unknown }).method)),
    ) as (Item & { method: string }) | undefined;
    const transfer = required(unnamed, "a transfer whose method no built-in ABI names");
    const { to } = only(
      await test.db.query<{ to: `0x${string}` }>(
        "SELECT '0x' || encode(to_address, 'hex') AS to FROM transactions WHERE hash = $1",
        [Buffer.from(transfer.transaction_hash.slice(2), "hex")],
      ),
    );
    const artifact = required(
      Object.values(await compileDemoContracts()).find(({ abi }) =>
        abi.some((entry) => entry.type === "function" && toFunctionSelector(entry) === transfer.method),
      ),
      `a demo contract with the function ${transfer.method}`,
    );
    const name = required(
      artifact.abi.find(
        (entry): entry is AbiFunction =>
          entry.type === "function" && toFunctionSelector(entry) === transfer.method,
      ),
      "the function",
    ).name;
    await writeContractAbi(test.db, {
      address: to,
      name: null,
      abi: artifact.abi,
      source: "abi",
      file: "t.json",
    });
    try {
      const same = (item: Item) =>
        item.transaction_hash === transfer.transaction_hash && item.log_index === transfer.log_index;
      const named = (await walk("/api/v2/token-transfers")).items.find(same) as Item & { method: string };
      expect(named.method).toBe(name);
      const ofSender = (await walk(`/api/v2/addresses/${transfer.from.hash}/token-transfers`)).items;
      expect((ofSender.find(same) as Item & { method: string }).method).toBe(name);
      // The transaction list names it the same, and so does the transfer shown in its row.
      const listed = (await walkTransactions(to)).find((row) => row.hash === transfer.transaction_hash);
      expect(listed).toMatchObject({ method: name });
      const preview = required(listed, "the transaction").token_transfers.find(same);
      if (preview) expect((preview as Item & { method: string }).method).toBe(name);
    } finally {
      await test.db.query("DELETE FROM contract_abis WHERE address = $1", [Buffer.from(to.slice(2), "hex")]);
    }
  });

  it("answers the same once a database that stored each transfer's and frame's transaction hash migrates", async () => {
    const busiest = async (table: string) =>
      only(
        await test.db.query<{ address: string }>(
          `SELECT '0x' || encode(t.from_address, 'hex') AS address
           FROM ${table} r JOIN transactions t ON t.block_number = r.block_number AND t.index = r.transaction_index
           GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
        ),
      ).address;
    // The accounts that sent the most transactions with transfers, and with internal transactions.
    const sender = await busiest("token_transfers");
    const caller = await busiest("internal_transactions");
    const paths = [
      "/api/v2/token-transfers",
      "/api/v2/token-transfers?type=ERC-721,ERC-1155",
      `/api/v2/addresses/${sender}/token-transfers`,
      `/api/v2/addresses/${sender}/transactions`,
      `/api/v2/addresses/${caller}/internal-transactions`,
    ];
    const answers = () => Promise.all(paths.map(async (path) => (await walk<unknown>(path)).items));
    const schema = () =>
      test.db.query(
        `SELECT c.relname, c.relkind, pg_get_indexdef(c.oid) AS definition,
           (SELECT string_agg(attname || CASE WHEN atthasdef THEN ' default' ELSE '' END, ',' ORDER BY attnum)
            FROM pg_attribute
            WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped) AS columns,
           (SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger
            WHERE tgrelid = c.oid AND NOT tgisinternal) AS triggers
         FROM pg_class c
         WHERE c.relnamespace = current_schema()::regnamespace
           AND (c.relname IN ('token_transfers', 'internal_transactions')
             OR c.oid IN (SELECT indexrelid FROM pg_index
                          WHERE indrelid IN ('token_transfers'::regclass, 'internal_transactions'::regclass)))
         ORDER BY c.relname`,
      );
    const before = await answers();
    const stored = await schema();
    expect(before.map((items) => items.length > 0)).toEqual(paths.map(() => true));
    // The hashes as the tables stored them before migration 033, which rewrites token_transfers as it was
    // then; 038 then counts each transfer's items from its arrays, and 039 requires the count of every row.
    const migrations = [
      "033_drop_transfer_and_frame_hashes.sql",
      "038_token_transfer_item_counts.sql",
      "039_token_transfer_item_counts_required.sql",
    ];
    for (const table of ["token_transfers", "internal_transactions"]) {
      await test.db.exec(`ALTER TABLE ${table} ADD COLUMN transaction_hash bytea;
        UPDATE ${table} r SET transaction_hash = t.hash FROM transactions t
        WHERE t.block_number = r.block_number AND t.index = r.transaction_index;
        ALTER TABLE ${table} ALTER COLUMN transaction_hash SET NOT NULL;`);
    }
    await test.db.query("DELETE FROM schema_migrations WHERE name = ANY($1)", [migrations]);
    expect((await migrate(test.db)).applied).toEqual(migrations);
    expect(await schema()).toEqual(stored);
    expect(await answers()).toEqual(before);
  });
});
