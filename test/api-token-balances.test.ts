import type { FastifyInstance } from "fastify";
import { checksumAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { required } from "../src/required.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import {
  address,
  collections404,
  collections721,
  collections1155,
  collector,
  emptyToken,
  erc721,
  fungible,
  fungibleHolders,
  holder,
  idZeroToken,
  multi,
  seedTokenBalances,
  two70,
  unknownToken,
} from "./support/token-balances-seed.ts";

// The responses' keys are checked against recorded Blockscout responses by
// `test/reference/token-balances.test.ts` (`npm run test:reference`).

describe.each(databaseKinds)("token balance lists on %s", (kind) => {
  let test: TestDatabase;
  let app: FastifyInstance;
  const get = async (url: string) => {
    const response = await app.inject(url);
    return {
      status: response.statusCode,
      body: response.json(),
      text: response.body,
      headers: response.headers,
    };
  };
  const query = (params: Record<string, unknown>) =>
    new URLSearchParams(
      Object.entries(params).map(([key, value]) => [key, value === null ? "null" : String(value)]),
    );
  /** Every page of a list, following next_page_params as raw JSON text (so big numbers keep their digits). */
  const allPages = async (path: string, extra: Record<string, string> = {}) => {
    const pages: {
      items: Record<string, unknown>[];
      text: string;
      cursor: Record<string, unknown> | null;
    }[] = [];
    let params: Record<string, unknown> | null = {};
    while (params) {
      const separator = path.includes("?") ? "&" : "?";
      const response = await get(`${path}${separator}${query({ ...extra, ...params })}`);
      expect(response.status).toBe(200);
      const rawCursor = /"next_page_params":(\{.*\})\}$/.exec(response.text)?.[1];
      // Numbers are taken with their exact digits from the text, not from a float.
      params = rawCursor
        ? Object.fromEntries(
            [...rawCursor.matchAll(/"([a-z_]+)":("[^"]*"|[0-9]+|null)/g)].map(([, key, value]) => {
              const text = required(value, `cursor field ${key}`);
              return [key, text.startsWith('"') ? text.slice(1, -1) : text];
            }),
          )
        : null;
      pages.push({ items: response.body.items, text: response.text, cursor: params });
      if (pages.length > 10) throw new Error("too many pages");
    }
    return pages;
  };

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    await seedTokenBalances(test.db);
    app = await createApiServer({ db: test.db });
  });
  afterAll(async () => {
    await app?.close();
    await test?.drop();
  });

  describe("/addresses/{hash}/tokens", () => {
    it("pages 51 balances as 50 and a cursor, then 1 and null, largest value first", async () => {
      const pages = await allPages(`/api/v2/addresses/${holder}/tokens`);
      expect(pages.map((page) => page.items.length)).toEqual([50, 1]);
      const firstPage = at(pages, 0);
      const cursor = firstPage.cursor as Record<string, string>;
      const last = at(firstPage.items, 49) as { value: string; token: { name: string; type: string } };
      expect(Object.keys(cursor).sort()).toEqual([
        "fiat_value",
        "id",
        "items_count",
        "token_name",
        "token_type",
        "value",
      ]);
      expect(firstPage.text).toContain(`"value":${last.value}`);
      expect(cursor).toMatchObject({ fiat_value: "null", items_count: "50", token_type: last.token.type });
      const items = pages.flatMap((page) => page.items) as {
        value: string;
        token: { address_hash: string };
        token_id: string | null;
      }[];
      const rows = items.map((item) => `${item.token.address_hash.toLowerCase()}:${item.token_id}`);
      expect(new Set(rows).size).toBe(51);
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [at(items, i - 1), at(items, i)];
        const order = BigInt(a.value) - BigInt(b.value);
        expect(order >= 0n).toBe(true);
        if (order === 0n) {
          expect(a.token.address_hash.toLowerCase() >= b.token.address_hash.toLowerCase()).toBe(true);
        }
      }
      expect(at(items, 0).value).toBe((two70 + 1n).toString());
      expect(rows).not.toContain(`${emptyToken}:null`);
    });

    it("renders each row with the token (integer holders_count), id and instance", async () => {
      const { body, headers } = await get(`/api/v2/addresses/${holder}/tokens?type=ERC-721,ERC-1155,ERC-404`);
      expect(headers["content-type"]).toBe("application/json; charset=utf-8");
      const nft = body.items.find((item: { token: { type: string } }) => item.token.type === "ERC-721");
      expect(nft).toMatchObject({ value: "3", token_id: null, token_instance: null });
      expect(nft.token).toMatchObject({ holders_count: 2, holders: 2, name: "Collectible", decimals: null });
      expect(nft.token.address_hash).toBe(checksumAddress(erc721 as Hex));
      expect(nft.token.address).toBe(nft.token.address_hash);
      const byId = (id: string) => body.items.find((item: { token_id: string }) => item.token_id === id);
      const shared = byId("100");
      expect(shared.token).toMatchObject({ type: "ERC-1155", holders_count: 2 });
      expect(shared.token_instance).toMatchObject({
        id: "100",
        is_unique: false,
        owner: null,
        metadata: { name: "One hundred" },
        image_url: "https://ipfs.io/ipfs/QmImage",
        media_url: "ipfs://QmImage",
        external_app_url: "https://example.org/100",
        animation_url: null,
        thumbnails: null,
        media_type: null,
      });
      expect(shared.token_instance.holder_address_hash).toBe(checksumAddress(holder));
      expect(shared.token_instance.token).toMatchObject({ holders_count: "2", type: "ERC-1155" });
      expect(byId("101").token_instance).toMatchObject({ is_unique: false, owner: null });
      const unique = byId("103").token_instance;
      expect(unique).toMatchObject({ is_unique: true, metadata: null, image_url: null });
      expect(unique.owner).toMatchObject({ is_contract: false, is_verified: false });
      expect(unique.owner.hash.toLowerCase()).toBe(holder);
      expect(byId("102").token_instance).toMatchObject({
        metadata: { error: "request failed: 404" },
        image_url: null,
      });
      expect(byId("7")).toMatchObject({ value: "1", token: { type: "ERC-404" } });
      expect(byId("7").token_instance).toMatchObject({ is_unique: true });
      const fungibleSide = body.items.find(
        (item: { token: { type: string }; token_id: string | null }) =>
          item.token.type === "ERC-404" && item.token_id === null,
      );
      expect(fungibleSide).toMatchObject({ value: "5000000000000000000", token_instance: null });
    });

    it.each([
      ["ERC-20", 19],
      ["erc-20", 19],
      ["[ERC-721,erc-1155]", 30],
      ["ERC-404", 2],
      ["Erc-1155,ERC-404,erc-1155", 31],
      ["", 51],
    ])("filters type=%s to %i rows", async (type, count) => {
      const pages = await allPages(`/api/v2/addresses/${holder}/tokens?type=${encodeURIComponent(type)}`);
      expect(pages.flatMap((page) => page.items)).toHaveLength(count);
    });

    it("answers a bad type with Blockscout's 422", async () => {
      const { status, body } = await get(`/api/v2/addresses/${holder}/tokens?type=ERC-999`);
      expect(status).toBe(422);
      expect(body.errors).toHaveLength(3);
      expect(body.errors.map((error: { source: { pointer: string } }) => error.source.pointer)).toEqual([
        "/type",
        "/type",
        "/type",
      ]);
      expect(body.errors[2].detail).toBe(
        "Invalid format. Expected ~r/^\\[?(ERC-20|ERC-721|ERC-1155|ERC-404|ERC-7984)(,(ERC-20|ERC-721|ERC-1155|ERC-404|ERC-7984))*\\]?$/i",
      );
    });

    it("accepts null, empty and partial cursors without repeating rows", async () => {
      const first = await get(`/api/v2/addresses/${holder}/tokens`);
      const nulls = await get(
        `/api/v2/addresses/${holder}/tokens?value=null&id=null&fiat_value=null&items_count=`,
      );
      expect(nulls.body).toEqual(first.body);
      const value = /"value":([0-9]+)/.exec(first.text.slice(first.text.indexOf('"next_page_params"')))?.[1];
      const partial = await get(
        `/api/v2/addresses/${holder}/tokens?value=${value}&token_name=x&token_type=ERC-20`,
      );
      expect(partial.status).toBe(200);
      for (const item of partial.body.items) expect(BigInt(item.value) < BigInt(value as string)).toBe(true);
      expect((await get(`/api/v2/addresses/${holder}/tokens?id=nonsense`)).status).toBe(422);
    });

    it("answers an unknown address with an empty page", async () => {
      expect((await get(`/api/v2/addresses/${address(99, 1)}/tokens`)).body).toEqual({
        items: [],
        next_page_params: null,
      });
    });

    it("sends an ERC-1155 row's instance with its holder and owner", async () => {
      const { body } = await get(`/api/v2/addresses/${holder}/tokens?type=ERC-1155`);
      expect(Object.keys(body.items[0].token_instance)).toEqual(
        expect.arrayContaining(["holder_address_hash", "owner"]),
      );
    });
  });

  describe("/tokens/{hash}/holders", () => {
    it("pages 51 holders, largest first, equal values by address descending, big values exact", async () => {
      const pages = await allPages(`/api/v2/tokens/${fungible}/holders`);
      expect(pages.map((page) => page.items.length)).toEqual([50, 1]);
      const items = pages.flatMap((page) => page.items) as {
        address_hash: { hash: string };
        value: string;
        token_id: null;
      }[];
      const expected = [...fungibleHolders]
        .sort((a, b) => (a.value === b.value ? (a.address < b.address ? 1 : -1) : a.value < b.value ? 1 : -1))
        .map((h): [string, string] => [h.address, h.value.toString()]);
      expect(items.map((item) => [item.address_hash.hash.toLowerCase(), item.value])).toEqual(expected);
      const firstPage = at(pages, 0);
      const cursor = firstPage.cursor as Record<string, string>;
      const [lastAddress, lastValue] = at(expected, 49);
      expect(Object.keys(cursor).sort()).toEqual(["address_hash", "items_count", "value"]);
      expect(cursor.value).toBe(lastValue);
      expect(BigInt(required(cursor.value, "cursor value")) > 2n ** 64n).toBe(true);
      expect(firstPage.text).toContain(`"value":${lastValue}`);
      expect(cursor.address_hash).toBe(lastAddress);
      expect(items.every((item) => item.token_id === null)).toBe(true);
    });

    it("resumes from a value alone, sent back as a double, without repeating the previous page", async () => {
      const firstPage = at(await allPages(`/api/v2/tokens/${fungible}/holders`), 0);
      const cursor = firstPage.cursor as Record<string, string>;
      const rounded = String(Number(cursor.value));
      expect(rounded).toContain("e+");
      const next = await get(`/api/v2/tokens/${fungible}/holders?value=${encodeURIComponent(rounded)}`);
      expect(next.status).toBe(200);
      const shown = new Set(
        (firstPage.items as { address_hash: { hash: string } }[]).map((item) => item.address_hash.hash),
      );
      for (const item of next.body.items) expect(shown.has(item.address_hash.hash)).toBe(false);
    });

    it("renders the address as address and address_hash", async () => {
      const { body } = await get(`/api/v2/tokens/${fungible}/holders`);
      const item = body.items.find(
        (entry: { address: { hash: string } }) =>
          entry.address.hash.toLowerCase() === at(fungibleHolders, 50).address,
      );
      expect(item.address).toEqual(item.address_hash);
      expect(item.address).toMatchObject({ is_contract: true, is_verified: false });
      expect(Object.keys(item)).toContain("address_hash");
    });

    it("lists ERC-1155 holders once per id and ERC-721 holders with their id count", async () => {
      const pages = await allPages(`/api/v2/tokens/${multi}/holders`);
      const items = pages.flatMap((page) => page.items) as { address: { hash: string }; token_id: string }[];
      expect(items).toHaveLength(53);
      expect(new Set(items.map((item) => `${item.address.hash}:${item.token_id}`)).size).toBe(53);
      const top = at(fungibleHolders, 50);
      expect(items.slice(0, 2).map((item) => [item.address.hash.toLowerCase(), item.token_id])).toEqual([
        [top.address, "6"],
        [top.address, "5"],
      ]);
      expect(at(pages, 0).cursor).toHaveProperty("token_id");
      const nft = await get(`/api/v2/tokens/${erc721}/holders`);
      expect(
        nft.body.items.map((item: { value: string; token_id: null }) => [item.value, item.token_id]),
      ).toEqual([
        ["3", null],
        ["1", null],
      ]);
    });

    it("walks ERC-1155 holders from Blockscout's cursor keys, sent back as doubles, each row once", async () => {
      // Blockscout's ERC-1155 holders cursor has no token_id; its frontend sends the values it parsed.
      const seen: string[] = [];
      let cursor: Record<string, unknown> | null = {};
      for (let pages = 0; cursor !== null; pages++) {
        expect(pages).toBeLessThan(3);
        const { status, body } = await get(`/api/v2/tokens/${multi}/holders?${query(cursor)}`);
        expect(status).toBe(200);
        for (const item of body.items as { address: { hash: string }; token_id: string }[])
          seen.push(`${item.address.hash.toLowerCase()}:${item.token_id}`);
        const sent: Record<string, unknown> | null = body.next_page_params;
        cursor = sent && {
          address_hash: sent.address_hash,
          items_count: sent.items_count,
          value: sent.value,
        };
      }
      expect(seen).toHaveLength(53);
      expect(new Set(seen).size).toBe(53);
    });

    it("answers an unknown token with 404 and a bad address with 422", async () => {
      const unknown = await get(`/api/v2/tokens/${unknownToken}/holders`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ message: "Not found" });
      expect((await get("/api/v2/tokens/0x12/holders")).status).toBe(422);
      // A double's printing is a value (Blockscout's frontend sends it); what no number prints is not.
      expect((await get(`/api/v2/tokens/${fungible}/holders?value=1.5e21`)).status).toBe(200);
      for (const value of ["Infinity", "NaN", "1.5e21x", "-1", "1e", "0x10", "1e+999"])
        expect(
          (await get(`/api/v2/tokens/${fungible}/holders?value=${encodeURIComponent(value)}`)).status,
        ).toBe(422);
    });

    it("reads a value above every balance (more digits than any) as a cursor all holders follow", async () => {
      const first = await get(`/api/v2/tokens/${fungible}/holders`);
      expect(first.body.items).toHaveLength(50);
      for (const value of ["10e99", `${"9".repeat(100)}e5`]) {
        const above = await get(
          `/api/v2/tokens/${fungible}/holders?value=${value}&address_hash=${unknownToken}`,
        );
        expect(above.body).toEqual(first.body);
      }
    });
  });

  describe("/tokens/{hash}/instances/{id}/holders", () => {
    it("pages 51 holders of one id with an exact value cursor", async () => {
      const pages = await allPages(`/api/v2/tokens/${multi}/instances/5/holders`);
      expect(pages.map((page) => page.items.length)).toEqual([50, 1]);
      const items = pages.flatMap((page) => page.items) as { address: { hash: string }; token_id: string }[];
      expect(new Set(items.map((item) => item.address.hash)).size).toBe(51);
      expect(items.every((item) => item.token_id === "5")).toBe(true);
      const firstPage = at(pages, 0);
      const cursor = firstPage.cursor as Record<string, string>;
      expect(Object.keys(cursor).sort()).toEqual(["address_hash", "items_count", "token_id", "value"]);
      expect(cursor.token_id).toBe("5");
      expect(firstPage.text).toMatch(/"value":1180591620717411303[0-9]{3}\b/);
    });

    it("answers 404 for an unknown or ERC-20 token, 422 for a bad id, empty for an id nobody holds", async () => {
      expect((await get(`/api/v2/tokens/${unknownToken}/instances/5/holders`)).status).toBe(404);
      const fungibleToken = await get(`/api/v2/tokens/${fungible}/instances/5/holders`);
      expect(fungibleToken.status).toBe(404);
      expect(fungibleToken.body).toEqual({ message: "Not found" });
      for (const id of ["abc", "01", "1.5"]) {
        const bad = await get(`/api/v2/tokens/${multi}/instances/${id}/holders`);
        expect(bad.status).toBe(422);
        expect(bad.body.errors).toEqual([
          {
            title: "Invalid value",
            source: { pointer: "/token_id_param" },
            detail: "Invalid format. Expected ~r/^-?([1-9][0-9]*|0)$/",
          },
        ]);
      }
      for (const id of ["-1", "999", "9".repeat(90)]) {
        expect((await get(`/api/v2/tokens/${multi}/instances/${id}/holders`)).body).toEqual({
          items: [],
          next_page_params: null,
        });
      }
      const nft = await get(`/api/v2/tokens/${erc721}/instances/2/holders`);
      expect(nft.body.items).toHaveLength(1);
      expect(nft.body.items[0]).toMatchObject({ value: "1", token_id: "2" });
    });

    it("reads id -0 as 0, as Blockscout reads it as an integer", async () => {
      const zero = await get(`/api/v2/tokens/${idZeroToken}/instances/0/holders`);
      expect(zero.body.items).toHaveLength(1);
      expect(zero.body.items[0]).toMatchObject({ value: "1", token_id: "0" });
      expect((await get(`/api/v2/tokens/${idZeroToken}/instances/-0/holders`)).body).toEqual(zero.body);
    });
  });

  describe("/addresses/{hash}/nft/collections", () => {
    it("pages 102 collections as 50 ERC-721, 50 ERC-1155 and 2 ERC-404, address ascending within", async () => {
      const pages = await allPages(`/api/v2/addresses/${collector}/nft/collections`);
      expect(pages.map((page) => page.items.length)).toEqual([50, 50, 2]);
      const tokens = pages.flatMap((page) =>
        page.items.map((item) => (item.token as { address_hash: string }).address_hash.toLowerCase()),
      );
      expect(tokens).toEqual([...collections721, ...collections1155, ...collections404]);
      expect(at(pages, 0).cursor).toEqual({
        token_contract_address_hash: collections721[49],
        token_type: "ERC-721",
        items_count: "50",
      });
      expect(at(pages, 1).cursor).toMatchObject({ token_type: "ERC-1155" });
    });

    it("lists at most 9 instances per collection, highest id first, with amount and value", async () => {
      const { body } = await get(`/api/v2/addresses/${collector}/nft/collections`);
      const first = body.items[0];
      expect(first.amount).toBe("12");
      expect(first.token).toMatchObject({ type: "ERC-721", holders_count: "1", holders: "1" });
      expect(first.token_instances.map((instance: { id: string }) => instance.id)).toEqual([
        "12",
        "11",
        "10",
        "9",
        "8",
        "7",
        "6",
        "5",
        "4",
      ]);
      expect(first.token_instances[0]).toMatchObject({
        token_type: "ERC-721",
        value: "1",
        is_unique: true,
        token: null,
        metadata: { name: "Twelve" },
        image_url: "https://example.org/12.png",
        animation_url: "https://ipfs.io/ipfs/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/12.mp4",
      });
      expect(first.token_instances[0].owner.hash.toLowerCase()).toBe(collector);
      expect(body.items[1]).toMatchObject({ amount: "1" });
      const second = await get(`/api/v2/addresses/${collector}/nft/collections?type=ERC-1155`);
      const multiple = second.body.items[0];
      expect(multiple.amount).toBe("10");
      expect(multiple.token_instances).toHaveLength(9);
      expect(multiple.token_instances.at(-1)).toMatchObject({ id: "2", value: "1", token_type: "ERC-1155" });
      expect(
        multiple.token_instances.find((instance: { id: string }) => instance.id === "1"),
      ).toBeUndefined();
      expect(second.body.items[1].token_instances).toEqual([
        expect.objectContaining({ id: "1", value: "3", is_unique: false, owner: null }),
      ]);
    });

    it("filters by type in any case and brackets; a non-NFT list means every type", async () => {
      const count = async (type: string) =>
        (
          await allPages(`/api/v2/addresses/${collector}/nft/collections?type=${encodeURIComponent(type)}`)
        ).flatMap((page) => page.items).length;
      expect(await count("erc-404")).toBe(2);
      expect(await count("[ERC-404,erc-721]")).toBe(52);
      expect(await count("ERC-20")).toBe(102);
      const bad = await get(`/api/v2/addresses/${collector}/nft/collections?type=ERC-20,foo`);
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].source.pointer).toBe("/type");
      const erc404Items = (await get(`/api/v2/addresses/${collector}/nft/collections?type=ERC-404`)).body
        .items;
      expect(erc404Items[0]).toMatchObject({ amount: "1" });
      expect(erc404Items[0].token_instances).toEqual([expect.objectContaining({ id: "42", value: "1" })]);
    });

    it("resumes from partial cursors without repeating", async () => {
      const onlyType = await get(`/api/v2/addresses/${collector}/nft/collections?token_type=ERC-1155`);
      expect(onlyType.body.items.map((item: { token: { type: string } }) => item.token.type)).toEqual([
        "ERC-404",
        "ERC-404",
      ]);
      const onlyAddress = await get(
        `/api/v2/addresses/${collector}/nft/collections?token_contract_address_hash=${collections1155[47]}`,
      );
      expect(
        onlyAddress.body.items.map((item: { token: { address_hash: string } }) =>
          item.token.address_hash.toLowerCase(),
        ),
      ).toEqual([collections1155[48], collections1155[49], ...collections404]);
      expect((await get(`/api/v2/addresses/${collector}/nft/collections?token_type=ERC-20`)).status).toBe(
        422,
      );
    });
  });

  describe("with IPFS_PUBLIC_GATEWAY_URL set", () => {
    let gatewayApp: FastifyInstance;
    beforeAll(async () => {
      gatewayApp = await createApiServer({ db: test.db, ipfsPublicGateway: "https://cdn.test/ipfs" });
    });
    afterAll(() => gatewayApp?.close());

    it("points the ipfs:// media links of instances at that gateway, the others as before", async () => {
      const tokens = (await gatewayApp.inject(`/api/v2/addresses/${holder}/tokens?type=ERC-1155`)).json();
      const shared = tokens.items.find((item: { token_id: string }) => item.token_id === "100");
      expect(shared.token_instance).toMatchObject({
        image_url: "https://cdn.test/ipfs/QmImage",
        media_url: "ipfs://QmImage",
        external_app_url: "https://example.org/100",
      });
      const collections = (
        await gatewayApp.inject(`/api/v2/addresses/${collector}/nft/collections?type=ERC-721`)
      ).json();
      expect(collections.items[0].token_instances[0]).toMatchObject({
        id: "12",
        image_url: "https://example.org/12.png",
        animation_url: "https://cdn.test/ipfs/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/12.mp4",
      });
    });
  });
});
