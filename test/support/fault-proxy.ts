import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { at } from "./elements.ts";

/**
 * What the proxy can do to a request instead of passing it through unharmed:
 * - `drop`: close the connection without answering;
 * - `timeout`: never answer, holding the connection until the client gives up;
 * - `http429`, `http503`: answer with that HTTP status, as a rate limiter or a load balancer would;
 * - `truncated`: forward the request, then send only the first part of the node's answer;
 * - `batchEntryError`: forward, then replace one entry's result with a JSON-RPC error a busy or lagging
 *   node sends ("header not found", internal error, limit exceeded);
 * - `nullBlock`: forward, then replace one `eth_getBlockByNumber` result with `null`, as a node behind a
 *   load balancer that announced a head another backend cannot serve yet;
 * - `restart`: not drawn per request; {@link FaultProxy.setDown} refuses connections until called again.
 */
export type FaultKind =
  | "drop"
  | "timeout"
  | "http429"
  | "http503"
  | "truncated"
  | "batchEntryError"
  | "nullBlock"
  | "restart";

export const faultKinds: FaultKind[] = [
  "drop",
  "timeout",
  "http429",
  "http503",
  "truncated",
  "batchEntryError",
  "nullBlock",
  "restart",
];

export type StartFaultProxyParameters = {
  /** JSON-RPC URL of the node behind the proxy. */
  target: string;
  /** The faults drawn; `restart` only enables {@link FaultProxy.setDown}. */
  faults: FaultKind[];
  /** Share of requests that get a fault, 0 to 1. */
  rate: number;
  /** Seed of the fault draws, so a run can be repeated (as far as concurrent requests arrive in order). */
  seed?: number;
  /** Run before a request is forwarded, to change the node's chain under a given call. */
  beforeForward?: (calls: JsonRpcCall[]) => Promise<void>;
};

export type FaultProxy = {
  /** The proxy's JSON-RPC URL, on 127.0.0.1. */
  url: string;
  /** Faults injected so far, by kind; `restart` counts the times the proxy went down. */
  counts: Record<FaultKind, number>;
  /**
   * Takes the proxy down (listener closed, every open connection cut, so new requests meet "connection
   * refused") or brings it back on the same port, as a node restarting.
   */
  setDown(down: boolean): Promise<void>;
  /** Cuts every connection, held ones included, and stops listening. */
  close(): Promise<void>;
};

export type JsonRpcCall = { id?: unknown; method?: string; params?: unknown[] };
type JsonRpcAnswer = { jsonrpc?: string; id?: unknown; result?: unknown; error?: unknown };

/** Errors real nodes send for a call that may well succeed when asked again. */
const transientErrors = [
  { code: -32000, message: "header not found" },
  { code: -32000, message: "missing trie node 5b9f7f1c0b1e4d6a (path )" },
  { code: -32603, message: "internal error" },
  { code: -32005, message: "limit exceeded" },
];

/**
 * Starts an HTTP proxy in front of a JSON-RPC node that injects faults into a share of the requests, to
 * prove a client rides them out. Each request draws at random (seeded) whether it gets a fault, then which
 * of the faults that apply to it; until every kind has been injected once, kinds not yet seen go first,
 * so even a short run meets each of them.
 */
export async function startFaultProxy({
  target,
  faults,
  rate,
  seed = 1,
  beforeForward,
}: StartFaultProxyParameters): Promise<FaultProxy> {
  const random = mulberry32(seed);
  const counts = Object.fromEntries(faultKinds.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  const perRequest = faults.filter((kind) => kind !== "restart");

  function drawFault(calls: JsonRpcCall[]): FaultKind | null {
    if (random() >= rate) return null;
    const applicable = perRequest.filter((kind) => kind !== "nullBlock" || calls.some(asksForLaterBlock));
    if (applicable.length === 0) return null;
    const unseen = applicable.filter((kind) => counts[kind] === 0);
    const pool = unseen.length > 0 ? unseen : applicable;
    return at(pool, Math.floor(random() * pool.length));
  }

  async function forward(body: string): Promise<{ status: number; text: string }> {
    const answer = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: answer.status, text: await answer.text() };
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const body = await readBody(request);
    let parsed: JsonRpcCall | JsonRpcCall[];
    try {
      parsed = JSON.parse(body);
    } catch {
      return response.writeHead(400).end("not JSON");
    }
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const fault = drawFault(calls);
    if (fault) counts[fault]++;

    switch (fault) {
      case "drop":
        return request.socket.destroy();
      case "timeout":
        // Held until the client's timeout closes the connection, or close() cuts it.
        return;
      case "http429":
        return response.writeHead(429, { "retry-after": "1" }).end("Too Many Requests");
      case "http503":
        return response.writeHead(503).end("Service Unavailable");
    }

    await beforeForward?.(calls);
    const { status, text } = await forward(body);
    // setDown or close cut the connection while the node was answering.
    if (request.socket.destroyed) return;
    if (fault === "truncated") {
      const part = text.slice(0, Math.floor(random() * text.length));
      // Either the connection dies mid-answer, or a broken middlebox ends a short answer cleanly.
      if (random() < 0.5) {
        response.writeHead(status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
        });
        response.write(part);
        return response.socket?.destroy();
      }
      return response.writeHead(status, { "content-type": "application/json" }).end(part);
    }
    if (fault === "batchEntryError" || fault === "nullBlock") {
      const answer = JSON.parse(text) as JsonRpcAnswer | JsonRpcAnswer[];
      const answers = Array.isArray(answer) ? answer : [answer];
      const victims =
        fault === "nullBlock"
          ? answers.filter((entry) => calls.some((call) => call.id === entry.id && asksForLaterBlock(call)))
          : answers;
      const victim = victims[Math.floor(random() * victims.length)];
      // The node itself refused the whole request: nothing to spoil.
      if (!victim) return response.writeHead(status, { "content-type": "application/json" }).end(text);
      if (fault === "nullBlock") victim.result = null;
      else {
        delete victim.result;
        // A trace answered "missing trie node" says the node keeps no state for the block, for good.
        const traced = /trace/i.test(calls.find((call) => call.id === victim.id)?.method ?? "");
        const errors = traced
          ? transientErrors.filter(({ message }) => !/trie/.test(message))
          : transientErrors;
        victim.error = errors[Math.floor(random() * errors.length)];
      }
      return response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer));
    }
    response.writeHead(status, { "content-type": "application/json" }).end(text);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => request.socket.destroy());
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  let down = false;

  async function stopListening() {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }

  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    async setDown(wanted: boolean) {
      if (wanted === down) return;
      down = wanted;
      if (wanted) {
        counts.restart++;
        await stopListening();
      } else {
        server.listen(port, "127.0.0.1");
        await new Promise((resolve) => server.once("listening", resolve));
      }
    },
    async close() {
      if (!down) await stopListening();
      down = true;
    },
  };
}

/**
 * Whether `call` is an `eth_getBlockByNumber` for a block after genesis. Every node has its genesis, and
 * the indexer's prepare() takes a missing one as final rather than retrying it.
 */
function asksForLaterBlock(call: JsonRpcCall): boolean {
  const block = call.params?.[0];
  return call.method === "eth_getBlockByNumber" && block !== "0x0" && block !== "earliest";
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      text += chunk;
    });
    request.on("end", () => resolve(text));
    request.on("error", reject);
  });
}

/** A small seeded PRNG (mulberry32): the same seed gives the same draws. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
