import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { JsonRpcCall } from "./fault-proxy.ts";

export type JsonRpcAnswer = {
  jsonrpc: "2.0";
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
};

export type StartRoutingProxyParameters = {
  /** The node each request's calls go to, as a load balancer picks a backend per request. */
  route: (calls: JsonRpcCall[]) => string;
  /** Answers a call itself instead of forwarding it (a node that refuses what others accept); undefined forwards. */
  answer?: (call: JsonRpcCall) => Omit<JsonRpcAnswer, "jsonrpc" | "id"> | undefined;
  /** Changes a forwarded call's answer before it goes back (a node that leaves fields out). */
  rewrite?: (call: JsonRpcCall, answer: JsonRpcAnswer) => JsonRpcAnswer;
};

export type RoutingProxy = {
  url: string;
  /** Every call that reached the proxy, in order. */
  calls: JsonRpcCall[];
  close(): Promise<void>;
};

/**
 * An HTTP JSON-RPC proxy on 127.0.0.1 that sends each request to the node `route` picks (a load balancer
 * whose backends may follow different forks), answers the calls `answer` takes itself, and passes the
 * others' answers through `rewrite`.
 */
export async function startRoutingProxy({
  route,
  answer,
  rewrite = (_call, forwarded) => forwarded,
}: StartRoutingProxyParameters): Promise<RoutingProxy> {
  const calls: JsonRpcCall[] = [];
  const server = createServer((request, response) => {
    handle(request)
      .then((body) => response.writeHead(200, { "content-type": "application/json" }).end(body))
      .catch(() => request.socket.destroy());
  });

  async function handle(request: IncomingMessage): Promise<string> {
    let text = "";
    for await (const chunk of request) text += chunk;
    const parsed = JSON.parse(text) as JsonRpcCall | JsonRpcCall[];
    const batch = Array.isArray(parsed) ? parsed : [parsed];
    calls.push(...batch);
    const answers = new Map<unknown, JsonRpcAnswer>();
    const forwarded: JsonRpcCall[] = [];
    for (const call of batch) {
      const own = answer?.(call);
      if (own) answers.set(call.id, { jsonrpc: "2.0", id: call.id, ...own });
      else forwarded.push(call);
    }
    if (forwarded.length > 0) {
      const reply = await fetch(route(forwarded), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(forwarded),
      });
      for (const entry of (await reply.json()) as JsonRpcAnswer[]) {
        const call = forwarded.find((candidate) => candidate.id === entry.id) ?? {};
        answers.set(entry.id, rewrite(call, entry));
      }
    }
    const ordered = batch.map((call) => answers.get(call.id));
    return JSON.stringify(Array.isArray(parsed) ? ordered : ordered[0]);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}
