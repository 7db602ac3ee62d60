import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RecordedExchange } from "./rpc-recordings.ts";

export type ReplayNode = { url: string; close(): Promise<void>; calls: string[] };

export type StartReplayNodeParameters = {
  chainId: number;
  /** The chain's genesis hash, answered for block 0 (the only field of block 0 the indexer reads). */
  genesisHash: string;
  /** Recorded `eth_getBlockByNumber` (full transactions) and `eth_getBlockReceipts` answers. */
  recordings: RecordedExchange[];
  /** Play a node without `eth_getBlockReceipts`: receipts only one transaction at a time. */
  withoutBlockReceipts?: boolean;
};

/**
 * A tiny JSON-RPC server that answers with real recorded mainnet data: blocks by number, receipts by
 * block number or hash. Every other method is answered "method not found", as a node lacking it would.
 */
export async function startReplayNode({
  chainId,
  genesisHash,
  recordings,
  withoutBlockReceipts = false,
}: StartReplayNodeParameters): Promise<ReplayNode> {
  const blocks = new Map<bigint, Record<string, unknown>>();
  const receipts = new Map<string, unknown>();
  const receiptsByTransaction = new Map<string, unknown>();
  for (const { request, response } of recordings) {
    if (request.method === "eth_getBlockByNumber") {
      const block = response.result as Record<string, unknown>;
      blocks.set(BigInt(block.number as string), block);
    }
  }
  for (const { request, response } of recordings) {
    if (request.method !== "eth_getBlockReceipts") continue;
    const number = BigInt(request.params[0] as string);
    receipts.set(number.toString(), response.result);
    for (const receipt of response.result as { transactionHash: string }[])
      receiptsByTransaction.set(receipt.transactionHash, receipt);
    const block = blocks.get(number);
    if (block) receipts.set(String(block.hash), response.result);
  }
  const calls: string[] = [];
  const answer = (call: { id: unknown; method: string; params: unknown[] }) => {
    calls.push(call.method);
    const result = (value: unknown) => ({ jsonrpc: "2.0", id: call.id, result: value });
    switch (call.method) {
      case "eth_chainId":
        return result(`0x${chainId.toString(16)}`);
      case "eth_blockNumber":
        return result(`0x${[...blocks.keys()].reduce((a, b) => (a > b ? a : b), 0n).toString(16)}`);
      case "eth_getBlockByNumber": {
        const number = BigInt(call.params[0] as string);
        if (number === 0n) return result({ number: "0x0", hash: genesisHash, transactions: [] });
        return result(blocks.get(number) ?? null);
      }
      case "eth_getTransactionReceipt":
        return result(receiptsByTransaction.get(String(call.params[0])) ?? null);
      case withoutBlockReceipts ? "" : "eth_getBlockReceipts": {
        const key =
          String(call.params[0]).startsWith("0x") && String(call.params[0]).length === 66
            ? String(call.params[0])
            : BigInt(call.params[0] as string).toString();
        return result(receipts.get(key) ?? null);
      }
      default:
        return {
          jsonrpc: "2.0",
          id: call.id,
          error: { code: -32601, message: `the method ${call.method} does not exist/is not available` },
        };
    }
  };
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      const parsed = JSON.parse(body);
      const reply = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
