import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Address, decodeFunctionData, encodeFunctionData, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../src/db/client.ts";
import { byteaParam } from "../src/db/table-rows.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { artifactOf, compileSources } from "../src/demo/compile.ts";
import { createMetadataFetcher } from "../src/indexer/create-metadata-fetcher.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { sleep } from "../src/sleep.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import { type FaultProxy, type JsonRpcCall, startFaultProxy } from "./support/fault-proxy.ts";
import { type RoutingProxy, startRoutingProxy } from "./support/routing-proxy.ts";
import { transact } from "./support/transact.ts";
import { until } from "./support/until.ts";

// One contract serves as both kinds: `tokenURI` reverts for an id never set, `uri` answers a template.
const source = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Uris {
  mapping(uint256 => string) private uris;
  string private template;
  function set(uint256 id, string calldata value) external { uris[id] = value; }
  function setTemplate(string calldata value) external { template = value; }
  function tokenURI(uint256 id) external view returns (string memory) {
    require(bytes(uris[id]).length > 0, "no such token");
    return uris[id];
  }
  function uri(uint256) external view returns (string memory) { return template; }
}`;

const maxBytes = 50_000;
const timeoutMs = 300;
/** How long the server takes over `/round/slow`: long enough for a round to fail while it is fetched. */
const slowAnswerMs = 600;

describe.each(databaseKinds)("NFT metadata fetcher on %s", (kind) => {
  let anvil: Anvil;
  let client: RpcClient;
  let server: Server;
  let base: string;
  let test: TestDatabase;
  let nft: Address;
  let multi: Address;
  let account: Address;
  let flakyAnswers = 0;
  let rateLimitedAnswers = 0;
  let urisAbi: Parameters<typeof encodeFunctionData>[0]["abi"];
  // Requests under `/round/` being answered now, and the most there ever were at once, by path.
  const inFlight = new Map<string, number>();
  const mostAtOnce = new Map<string, number>();

  function send(response: ServerResponse, status: number, body: string) {
    response.writeHead(status, { "content-type": "application/json" }).end(body);
  }

  const submit = (to: Address | undefined, data: Hex) => transact(client, { from: account, to, data });

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? "/";
      if (path === "/ok.json") return send(response, 200, '{"name":"ok","image":"ipfs://QmImage/1.png"}');
      if (path === "/404") return send(response, 404, '{"error":"gone"}');
      if (path === "/slow") {
        const timer = setTimeout(() => send(response, 200, "{}"), 2_000);
        response.on("close", () => clearTimeout(timer));
        return;
      }
      if (path === "/big") return send(response, 200, `{"junk":"${"x".repeat(maxBytes * 2)}"}`);
      // Escapes JSON.parse takes, PostgreSQL's jsonb refuses: a lone surrogate each way, and U+0000.
      if (path === "/surrogates")
        return send(response, 200, String.raw`{"name":"a\ud800b","\udc00":"\u0000c","ok":"\ud83d\ude00"}`);
      // Arrays nested deeper than the JSON encoder and the database go.
      if (path === "/deep") return send(response, 200, `{"a":${"[".repeat(20_000)}${"]".repeat(20_000)}}`);
      // Fails once, then answers: a retry must get it.
      if (path === "/flaky")
        return flakyAnswers++ === 0 ? send(response, 503, "") : send(response, 200, "{}");
      // Rate limited for both of a round's attempts, then answers.
      if (path === "/rate-limited")
        return rateLimitedAnswers++ < 2 ? send(response, 429, "") : send(response, 200, '{"name":"late"}');
      if (path.startsWith("/round/")) {
        const now = (inFlight.get(path) ?? 0) + 1;
        inFlight.set(path, now);
        mostAtOnce.set(path, Math.max(now, mostAtOnce.get(path) ?? 0));
        const timer = setTimeout(
          () => send(response, 200, JSON.stringify({ name: path })),
          path === "/round/slow" ? slowAnswerMs : 0,
        );
        // Answered, or given up on by the fetcher.
        response.on("close", () => {
          clearTimeout(timer);
          inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
        });
        return;
      }
      const match = /^\/1155\/([0-9a-f]{64})\.json$/.exec(path);
      if (match) return send(response, 200, JSON.stringify({ name: "multi", image: `/img/{id}.png` }));
      send(response, 404, "");
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const { abi, bytecode } = artifactOf(await compileSources({ "Uris.sol": source }), "Uris");
    urisAbi = abi;
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl, retryDelayMs: 10 });
    account = at(await client.request<Address[]>("eth_accounts"), 0, "dev accounts");
    nft = (await submit(undefined, bytecode)).contractAddress as Address;
    multi = (await submit(undefined, bytecode)).contractAddress as Address;
    const uris: Record<number, string> = {
      1: `${base}/ok.json`,
      2: `${base}/404`,
      3: `${base}/slow`,
      4: `${base}/big`,
      5: `data:application/json;base64,${Buffer.from('{"name":"on chain"}').toString("base64")}`,
      7: `${base}/flaky`,
      8: `${base}/surrogates`,
      9: `${base}/deep`,
      10: `${base}/rate-limited`,
    };
    for (const [id, uri] of Object.entries(uris)) {
      await submit(nft, encodeFunctionData({ abi, functionName: "set", args: [BigInt(id), uri] }));
    }
    await submit(
      multi,
      encodeFunctionData({ abi, functionName: "setTemplate", args: [`${base}/1155/{id}.json`] }),
    );

    test = await createTestDatabase(kind);
    const eoa = "0x000000000000000000000000000000000000dEaD";
    const tokens: [Address, string][] = [
      [nft, "ERC-721"],
      [multi, "ERC-1155"],
      [eoa, "ERC-721"],
    ];
    for (const [address, type] of tokens) {
      await test.db.query(
        "INSERT INTO tokens (address, type, first_seen_block, read_at_block) VALUES ($1, $2, 1, 1)",
        [byteaParam(address), type],
      );
    }
    // Id 6 was never set, so tokenURI reverts; the EOA has no code to answer at all.
    const instances: [Address, string][] = [
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((id): [Address, string] => [nft, String(id)]),
      [multi, "42"],
      [eoa, "1"],
    ];
    for (const [address, id] of instances) {
      await test.db.query(
        "INSERT INTO token_instances (token_address, token_id, first_seen_block) VALUES ($1, $2::numeric, 1)",
        [byteaParam(address), id],
      );
    }
  });

  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await test?.drop();
    await anvil?.stop();
  });

  async function stored(address: Address, id: string) {
    const [row] = await test.db.query<{
      token_uri: string | null;
      metadata: Record<string, unknown> | null;
      metadata_error: string | null;
      fetched: boolean;
    }>(
      `SELECT token_uri, metadata, metadata_error, metadata_fetched_at IS NOT NULL AS fetched
         FROM token_instances WHERE token_address = $1 AND token_id = $2::numeric`,
      [byteaParam(address), id],
    );
    return row;
  }

  it("stores metadata or the reason per instance, once", async () => {
    const fetcher = createMetadataFetcher({
      db: test.db,
      client,
      logger: createLogger("silent"),
      refused: null,
      timeoutMs,
      maxBytes,
      retries: 1,
      retryDelayMs: 20,
    });
    expect(await fetcher.runOnce()).toBe(12);
    expect(await fetcher.runOnce()).toBe(0);

    expect(await stored(nft, "1")).toEqual({
      token_uri: `${base}/ok.json`,
      metadata: { name: "ok", image: "ipfs://QmImage/1.png" },
      metadata_error: null,
      fetched: true,
    });
    expect(await stored(nft, "2")).toMatchObject({
      token_uri: `${base}/404`,
      metadata: null,
      metadata_error: "HTTP 404",
    });
    // Timed out and rate limited through the round's retries: nothing recorded, asked again later.
    const pending = { token_uri: null, metadata: null, metadata_error: null, fetched: false };
    expect(await stored(nft, "3")).toEqual(pending);
    expect(await stored(nft, "10")).toEqual(pending);
    expect(await stored(nft, "4")).toMatchObject({
      metadata: null,
      metadata_error: `body larger than ${maxBytes} bytes`,
    });
    expect(await stored(nft, "5")).toMatchObject({ metadata: { name: "on chain" }, metadata_error: null });
    expect(await stored(nft, "6")).toEqual({
      token_uri: null,
      metadata: null,
      metadata_error: "tokenURI reverted",
      fetched: true,
    });
    expect(await stored(nft, "7")).toMatchObject({ metadata: {}, metadata_error: null });
    expect(flakyAnswers).toBe(2);
    // Each lone surrogate becomes U+FFFD and U+0000 goes, so the rest of the metadata is kept.
    expect(await stored(nft, "8")).toMatchObject({
      metadata: { name: "a\ufffdb", "\ufffd": "c", ok: "\u{1f600}" },
      metadata_error: null,
    });
    // Nested past what the JSON encoder and the database go to: an error of its own, not a failed round.
    expect(await stored(nft, "9")).toMatchObject({
      token_uri: `${base}/deep`,
      metadata: null,
      metadata_error: "metadata nested too deeply",
      fetched: true,
    });

    const hex = `${"0".repeat(62)}2a`;
    expect(await stored(multi, "42")).toMatchObject({
      token_uri: `${base}/1155/{id}.json`,
      metadata: { name: "multi", image: `/img/${hex}.png` },
      metadata_error: null,
    });
    expect(await stored("0x000000000000000000000000000000000000dEaD", "1")).toMatchObject({
      metadata: null,
      metadata_error: "tokenURI returned no string",
    });

    // Due again: the rate limit is over, the slow server is as slow.
    await test.db.query(
      "UPDATE token_instances SET metadata_retry_at = now() WHERE metadata_retry_at IS NOT NULL",
    );
    expect(await fetcher.runOnce()).toBe(2);
    expect(await stored(nft, "10")).toEqual({
      token_uri: `${base}/rate-limited`,
      metadata: { name: "late" },
      metadata_error: null,
      fetched: true,
    });
    expect(await stored(nft, "3")).toEqual(pending);
    expect(rateLimitedAnswers).toBe(3);
  });

  it("run() stops when aborted", async () => {
    const fetcher = createMetadataFetcher({
      db: test.db,
      client,
      logger: createLogger("silent"),
      refused: null,
      pollIntervalMs: 10_000,
    });
    const controller = new AbortController();
    const running = fetcher.run(controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await running;
  });

  it("starts no round while a failed one's workers still fetch", async () => {
    const ids = { 11: `${base}/round/fast`, 12: `${base}/round/slow` };
    for (const [id, uri] of Object.entries(ids)) {
      await submit(nft, encodeFunctionData({ abi: urisAbi, functionName: "set", args: [BigInt(id), uri] }));
      await test.db.query(
        "INSERT INTO token_instances (token_address, token_id, first_seen_block) VALUES ($1, $2::numeric, 1)",
        [byteaParam(nft), id],
      );
    }
    // The database fails the first write of instance 11, quickly fetched, while 12 is still being fetched:
    // that round fails, and the next one takes up both again.
    let failedWrites = 0;
    const db: Database = {
      ...test.db,
      query(text, params, options) {
        if (failedWrites === 0 && text.includes("UPDATE token_instances") && params?.[1] === "11") {
          failedWrites++;
          return Promise.reject(new Error("the database failed the write"));
        }
        return test.db.query(text, params, options);
      },
    };
    const fetcher = createMetadataFetcher({
      db,
      client,
      logger: createLogger("silent"),
      refused: null,
      concurrency: 2,
      timeoutMs: 5_000,
      pollIntervalMs: 10,
    });
    const controller = new AbortController();
    const running = fetcher.run(controller.signal);
    try {
      await until(
        "instances 11 and 12 fetched",
        async () => (await stored(nft, "11"))?.fetched && (await stored(nft, "12"))?.fetched,
        10_000,
      );
    } finally {
      controller.abort();
      await running;
    }
    expect(failedWrites).toBe(1);
    expect(await stored(nft, "12")).toMatchObject({
      metadata: { name: "/round/slow" },
      metadata_error: null,
    });
    // The failed round's fetch of 12 was over before the next round asked for it again.
    expect(mostAtOnce.get("/round/slow")).toBe(1);
  });
});

/** What geth and Erigon answer for an `eth_call` that ran past their limit (`--rpc.evmtimeout`). */
const nodeTimedOut = { error: { code: -32000, message: "execution aborted (timeout = 5s)" } };
/** What a provider answers every call with once its rate limit is reached. */
const limitExceeded = { error: { code: -32005, message: "limit exceeded" } };

describe.each(databaseKinds)(
  "NFT metadata fetcher on %s, with a node slow over some tokenURI calls, or away",
  (kind) => {
    let anvil: Anvil;
    let proxy: RoutingProxy;
    // In front of `proxy`: goes down, refusing connections, as a node restarting.
    let door: FaultProxy;
    let hanging: Server;
    let test: TestDatabase;
    let nft: Address;
    let abi: Parameters<typeof decodeFunctionData>[0]["abi"];
    // The node gives up on tokenURI(1) this many times more, and the client waits in vain for tokenURI(2)
    // while `hang` holds.
    let nodeTimeouts = 0;
    let hang = true;
    // Every request, whatever it asks, waits in vain: a node that takes connections and answers nothing.
    let silent = false;
    // Every call, whatever it asks, is refused for a rate limit.
    let limited = false;
    // The rate limit ends as it refuses this many more tokenURI calls of id 1.
    let limitedForCalls: number | undefined;

    /** The id a `tokenURI` call asks about, if the call is one. */
    function tokenIdOf(call: JsonRpcCall): bigint | undefined {
      if (call.method !== "eth_call") return undefined;
      const { data } = (call.params?.[0] ?? {}) as { data?: Hex };
      if (!data) return undefined;
      const decoded = decodeFunctionData({ abi, data });
      return decoded.functionName === "tokenURI" ? (decoded.args?.[0] as bigint) : undefined;
    }

    beforeAll(async () => {
      hanging = createServer(() => {});
      hanging.listen(0, "127.0.0.1");
      await once(hanging, "listening");
      const hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;

      const artifact = artifactOf(await compileSources({ "Uris.sol": source }), "Uris");
      abi = artifact.abi as typeof abi;
      anvil = await startAnvil();
      const direct = createRpcClient({ url: anvil.rpcUrl, retryDelayMs: 10 });
      const account = at(await direct.request<Address[]>("eth_accounts"), 0, "dev accounts");
      nft = (await transact(direct, { from: account, data: artifact.bytecode })).contractAddress as Address;
      for (const id of [1n, 2n, 3n]) {
        const data = encodeFunctionData({
          abi: artifact.abi,
          functionName: "set",
          args: [id, `data:application/json,{"name":"${id}"}`],
        });
        await transact(direct, { from: account, to: nft, data });
      }
      proxy = await startRoutingProxy({
        route: (calls) =>
          silent || (hang && calls.some((call) => tokenIdOf(call) === 2n)) ? hangingUrl : anvil.rpcUrl,
        answer: (call) => {
          if (limited) {
            if (tokenIdOf(call) === 1n && limitedForCalls !== undefined && --limitedForCalls === 0)
              limited = false;
            return limitExceeded;
          }
          return tokenIdOf(call) === 1n && nodeTimeouts-- > 0 ? nodeTimedOut : undefined;
        },
      });
      door = await startFaultProxy({ target: proxy.url, faults: ["restart"], rate: 0 });

      test = await createTestDatabase(kind);
      await test.db.query(
        "INSERT INTO tokens (address, type, first_seen_block, read_at_block) VALUES ($1, 'ERC-721', 1, 1)",
        [byteaParam(nft)],
      );
      for (const id of ["1", "2", "3"]) {
        await test.db.query(
          "INSERT INTO token_instances (token_address, token_id, first_seen_block) VALUES ($1, $2::numeric, 1)",
          [byteaParam(nft), id],
        );
      }
    }, 60_000);

    afterAll(async () => {
      await door?.close();
      await proxy?.close();
      hanging?.closeAllConnections();
      hanging?.close();
      await test?.drop();
      await anvil?.stop();
    });

    async function stored(id: string) {
      const [row] = await test.db.query<{
        metadata: unknown;
        metadata_error: string | null;
        fetched: boolean;
      }>(
        `SELECT metadata, metadata_error, metadata_fetched_at IS NOT NULL AS fetched
         FROM token_instances WHERE token_address = $1 AND token_id = $2::numeric`,
        [byteaParam(nft), id],
      );
      return row;
    }

    /** The failures that can pass counted against instance `id`. */
    async function attemptsOf(id: string) {
      const [row] = await test.db.query<{ attempts: number }>(
        "SELECT metadata_attempts AS attempts FROM token_instances WHERE token_address = $1 AND token_id = $2::numeric",
        [byteaParam(nft), id],
      );
      return Number(row?.attempts);
    }

    /** Leaves `id` alone unfetched, its earlier attempts forgotten, and every other instance fetched. */
    async function onlyUnfetched(id: string) {
      await test.db.query(
        `UPDATE token_instances SET metadata = NULL, metadata_error = NULL, metadata_attempts = 0,
                metadata_retry_at = NULL,
                metadata_fetched_at = CASE WHEN token_id = $1::numeric THEN NULL ELSE now() END`,
        [id],
      );
    }

    const fetcherOf = (client: RpcClient, laterDelayMs: number, laterAttempts: number) =>
      createMetadataFetcher({
        db: test.db,
        client,
        logger: createLogger("silent"),
        refused: null,
        laterDelayMs,
        laterAttempts,
      });
    const pending = { metadata: null, metadata_error: null, fetched: false };

    it("records nothing for a call the node gave up on, asks it again later, and then stores it", async () => {
      await onlyUnfetched("1");
      hang = false;
      const client = createRpcClient({ url: proxy.url, timeoutMs: 1_000, retries: 1, retryDelayMs: 1 });
      // The node gives up on tokenURI(1) in the batch, its retry and both single calls.
      nodeTimeouts = 4;
      expect(await fetcherOf(client, 60_000, 3).runOnce()).toBe(1);
      expect(await stored("1")).toEqual(pending);
      // Deferred by a minute: not asked again yet.
      expect(await fetcherOf(client, 60_000, 3).runOnce()).toBe(0);
      await test.db.query("UPDATE token_instances SET metadata_retry_at = now() WHERE token_id = 1");
      expect(await fetcherOf(client, 60_000, 3).runOnce()).toBe(1);
      expect(await stored("1")).toEqual({ metadata: { name: "1" }, metadata_error: null, fetched: true });
    });

    it("defers a call the client stops waiting for without failing the others", async () => {
      await onlyUnfetched("2");
      await test.db.query("UPDATE token_instances SET metadata_fetched_at = NULL WHERE token_id = 3");
      hang = true;
      const client = createRpcClient({ url: proxy.url, timeoutMs: 300, retries: 1, retryDelayMs: 1 });
      expect(await fetcherOf(client, 0, 3).runOnce()).toBe(2);
      expect(await stored("2")).toEqual(pending);
      expect(await stored("3")).toEqual({ metadata: { name: "3" }, metadata_error: null, fetched: true });
      hang = false;
      expect(await fetcherOf(client, 0, 3).runOnce()).toBe(1);
      expect(await stored("2")).toEqual({ metadata: { name: "2" }, metadata_error: null, fetched: true });
    });

    it("records the node's words once laterAttempts are spent", async () => {
      await onlyUnfetched("1");
      hang = false;
      const client = createRpcClient({ url: proxy.url, timeoutMs: 1_000, retries: 0, retryDelayMs: 1 });
      nodeTimeouts = 4;
      expect(await fetcherOf(client, 0, 2).runOnce()).toBe(1);
      expect(await stored("1")).toEqual(pending);
      expect(await fetcherOf(client, 0, 2).runOnce()).toBe(1);
      expect(await stored("1")).toEqual({
        metadata: null,
        metadata_error: "tokenURI failed: execution aborted (timeout = 5s)",
        fetched: true,
      });
    });

    const outages = [
      { how: "refuses connections", setAway: (away: boolean) => door.setDown(away) },
      {
        how: "takes connections and answers nothing",
        setAway: async (away: boolean) => {
          silent = away;
        },
      },
      {
        how: "answers every call with a rate limit's error",
        setAway: async (away: boolean) => {
          limited = away;
        },
      },
    ];

    it.each(outages)(
      "counts nothing against the instances while the node $how, and fetches them once it is back",
      async ({ setAway }) => {
        await onlyUnfetched("1");
        hang = false;
        const client = createRpcClient({ url: door.url, timeoutMs: 200, retries: 0 });
        // Were the node's outage counted against the instance, the second round would record it as its error.
        const fetcher = fetcherOf(client, 0, 2);
        await setAway(true);
        try {
          await expect(fetcher.runOnce()).rejects.toThrow();
          await expect(fetcher.runOnce()).rejects.toThrow();
          expect(await stored("1")).toEqual(pending);
          expect(await attemptsOf("1")).toBe(0);
          const controller = new AbortController();
          const running = fetcher.run(controller.signal);
          try {
            // Rounds fail meanwhile; the one after the node's return fetches the instance.
            await sleep(200);
            await setAway(false);
            await until("instance 1 fetched", async () => (await stored("1"))?.fetched, 10_000);
          } finally {
            controller.abort();
            await running;
          }
        } finally {
          await setAway(false);
        }
        expect(await stored("1")).toEqual({ metadata: { name: "1" }, metadata_error: null, fetched: true });
        expect(await attemptsOf("1")).toBe(0);
      },
    );

    it("holds nothing against an instance when the node's rate limit ends between its call and a later probe", async () => {
      await onlyUnfetched("1");
      hang = false;
      const client = createRpcClient({ url: proxy.url, timeoutMs: 1_000, retries: 0 });
      const fetcher = fetcherOf(client, 0, 2);
      // The limit refuses the batch and then the call asked alone, and is over when the node is asked
      // whether it answers at all: the call's failure was the node's, not the contract's.
      limited = true;
      limitedForCalls = 2;
      try {
        for (let round = 0; round < 3 && !(await stored("1"))?.fetched; round++)
          await fetcher.runOnce().catch(() => 0);
      } finally {
        limited = false;
        limitedForCalls = undefined;
      }
      expect(await stored("1")).toEqual({ metadata: { name: "1" }, metadata_error: null, fetched: true });
      expect(await attemptsOf("1")).toBe(0);
    });

    it("asks a node that answered no batch whether it answers at all before it sends each call alone", async () => {
      await test.db.query(
        `UPDATE token_instances SET metadata = NULL, metadata_error = NULL, metadata_attempts = 0,
                metadata_retry_at = NULL, metadata_fetched_at = NULL`,
      );
      hang = false;
      silent = true;
      const client = createRpcClient({ url: proxy.url, timeoutMs: 200, retries: 0 });
      const asked = proxy.calls.length;
      try {
        await expect(fetcherOf(client, 0, 2).runOnce()).rejects.toThrow();
      } finally {
        silent = false;
      }
      // The batch of three and the probe: each call alone would have waited out the timeout in vain.
      expect(proxy.calls.slice(asked).map((call) => tokenIdOf(call) ?? call.method)).toEqual([
        1n,
        2n,
        3n,
        "eth_blockNumber",
      ]);
    });
  },
);
