import { type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressSuffix } from "../src/db/address-transaction-keys.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { databaseKinds } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";
import { transact } from "./support/transact.ts";

// Two addresses that differ only in their first 7 bytes: `address_transactions` keys both by the same last
// 13 bytes, so their rows share every key range of its indexes.
const suffix = "5eed0c0111de5eed0c0111de5e";
const alice = `0x${"a1".repeat(7)}${suffix}` as Hex;
const xavier = `0x${"7e".repeat(7)}${suffix}` as Hex;

type Sent = { hash: Hex; from: Hex; to: Hex; value: bigint; block: number };
type Item = { hash: string; value: string; from: { hash: string }; to: { hash: string } | null };

describe.each(databaseKinds)("addresses sharing their last 13 bytes on %s", (kind) => {
  let anvil: Anvil;
  let indexed: IndexedChain;
  const sent: Sent[] = [];

  beforeAll(async () => {
    anvil = await startAnvil();
    const client = createRpcClient({ url: anvil.rpcUrl });
    const funder = at(await client.request<Hex[]>("eth_accounts"), 0);
    const send = async (from: Hex, to: Hex, value: bigint) => {
      const { hash, blockNumber } = await transact(client, { from, to, value: toHex(value) });
      sent.push({ hash, from, to, value, block: Number(blockNumber) });
    };
    for (const twin of [alice, xavier]) {
      await client.request("anvil_setBalance", [twin, toHex(10n ** 20n)]);
      await client.request("anvil_impersonateAccount", [twin]);
    }
    // Interleaved, so that every page of one address's rows meets the other's in the index.
    for (let i = 1n; i <= 55n; i++) {
      await send(funder, alice, 1000n - i);
      await send(funder, xavier, 2000n + i);
    }
    for (let i = 1n; i <= 5n; i++) await send(alice, xavier, i);
    for (let i = 1n; i <= 3n; i++) await send(xavier, xavier, 500n + i);
    for (let i = 1n; i <= 4n; i++) await send(alice, funder, 3000n + i);
    indexed = await indexIntoNewDatabase(kind, client, { rangeSize: 32 });
  });
  afterAll(async () => {
    await indexed?.close();
    await anvil?.stop();
  });

  it("are keyed by the same suffix", () => {
    expect(addressSuffix(alice)).toBe(addressSuffix(xavier));
  });

  /** Every item of a list, following next_page_params as Blockscout's frontend does (JSON.parse, String). */
  async function walk(path: string, keep?: (cursor: Record<string, unknown>) => Record<string, unknown>) {
    const items: Item[] = [];
    let params: Record<string, unknown> | null = null;
    do {
      const query = new URLSearchParams(
        Object.entries(params ? (keep?.(params) ?? params) : {}).map(([k, v]) => [k, String(v)]),
      );
      const separator = path.includes("?") ? "&" : "?";
      const response = await indexed.app.inject(`${path}${query.size ? separator + query : ""}`);
      expect(response.statusCode).toBe(200);
      const body = JSON.parse(response.body) as { items: Item[]; next_page_params: Record<string, unknown> };
      items.push(...body.items);
      params = body.next_page_params;
    } while (params);
    return items;
  }

  const lists = [
    { query: "", keep: (t: Sent, who: Hex) => t.from === who || t.to === who, byValue: false },
    { query: "filter=from", keep: (t: Sent, who: Hex) => t.from === who, byValue: false },
    { query: "filter=to", keep: (t: Sent, who: Hex) => t.to === who, byValue: false },
    {
      query: "sort=value&order=asc",
      keep: (t: Sent, who: Hex) => t.from === who || t.to === who,
      byValue: true,
    },
    { query: "filter=to&sort=value&order=desc", keep: (t: Sent, who: Hex) => t.to === who, byValue: true },
  ];

  for (const [name, who] of [
    ["alice", alice],
    ["xavier", xavier],
  ] as const) {
    for (const { query, keep, byValue } of lists) {
      it(`lists only ${name}'s transactions, every page, with ?${query || "no query"}`, async () => {
        const items = await walk(`/api/v2/addresses/${who}/transactions${query ? `?${query}` : ""}`);
        const expected = sent
          .filter((transaction) => keep(transaction, who))
          .sort((x, y) => (byValue ? Number(x.value - y.value) : 0) || y.block - x.block);
        if (query.includes("order=desc")) expected.reverse();
        expect(items.map((item) => item.hash)).toEqual(expected.map((transaction) => transaction.hash));
        expect(expected.length).toBeGreaterThan(0);
      });
    }
  }

  it("resumes after a transaction named by its hash alone", async () => {
    const path = `/api/v2/addresses/${alice}/transactions?sort=value&order=asc`;
    const full = await walk(path);
    const byHash = await walk(path, (cursor) => ({ hash: cursor.hash }));
    expect(byHash.map((item) => item.hash)).toEqual(full.map((item) => item.hash));
  });
});
