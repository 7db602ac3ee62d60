import type { RpcCall, RpcClient } from "../../src/rpc/client.ts";
import { RpcResponseError } from "../../src/rpc/errors.ts";
import type { SyntheticBlock, SyntheticChain } from "./synthetic-chain.ts";

/**
 * An in-process JSON-RPC node serving a synthetic chain to Sextant's own indexer: the methods a
 * catch-up asks for (blocks, block receipts, `trace_block`, code, token reads, chain id, head), answered
 * from the chain's pure block function. Nothing is serialized: the indexer gets the objects a real
 * client would have parsed.
 */
export function createSyntheticNode(chain: SyntheticChain): RpcClient {
  // Blocks, receipts and traces of a range are asked for at once: each block is built once and
  // dropped when all three were served.
  const built = new Map<number, { value: SyntheticBlock; served: number }>();
  const take = (n: number, part: keyof SyntheticBlock) => {
    let entry = built.get(n);
    if (!entry) {
      entry = { value: chain.block(n), served: 0 };
      built.set(n, entry);
    }
    if (++entry.served === 3) built.delete(n);
    return entry.value[part];
  };
  const number = (tag: unknown) => {
    if (tag === "latest" || tag === "finalized" || tag === "safe") return chain.head;
    if (tag === "earliest") return 0;
    if (typeof tag === "object" && tag !== null && "blockHash" in tag) return numberOfHash(tag.blockHash);
    return Number(BigInt(tag as string));
  };
  // State reads name their block by hash (EIP-1898); a block hash ends with its number.
  const numberOfHash = (hash: unknown) => {
    const n = typeof hash === "string" ? Number.parseInt(hash.slice(-8), 16) : Number.NaN;
    if (!(n <= chain.head) || chain.blockHash(n) !== hash)
      throw new RpcResponseError({
        method: "eth_call",
        code: -32000,
        message: `header for hash ${hash} not found`,
      });
    return n;
  };

  function answer(method: string, params: unknown[] = []): unknown {
    switch (method) {
      case "eth_chainId":
        return `0x${chain.chainId.toString(16)}`;
      case "eth_blockNumber":
        return `0x${chain.head.toString(16)}`;
      case "web3_clientVersion":
        return "sextant-bench-synthetic/1";
      case "eth_getBlockByNumber": {
        const n = number(params[0]);
        if (n > chain.head) return null;
        if (params[1] === false) return { ...chain.block(n).block, transactions: [] };
        return take(n, "block");
      }
      case "eth_getBlockReceipts": {
        const n = number(params[0]);
        return n > chain.head ? null : take(n, "receipts");
      }
      case "trace_block": {
        const n = number(params[0]);
        return n > chain.head ? null : take(n, "traces");
      }
      case "eth_getCode":
        return chain.code(params[0] as string);
      case "eth_getStorageAt":
        return `0x${"0".repeat(64)}`;
      case "eth_call": {
        const { to, data } = params[0] as { to?: string; data: string };
        // It runs no EVM: a call that creates (CallEach) is refused, and Sextant makes the plain calls.
        if (to === undefined)
          throw new RpcResponseError({ method, code: -32000, message: "creation calls are not served here" });
        return chain.call(to, data, number(params[1]));
      }
      default:
        throw new RpcResponseError({ method, code: -32601, message: `the method ${method} does not exist` });
    }
  }

  return {
    url: "synthetic://bench",
    async request<T>(method: string, params?: unknown[]) {
      return answer(method, params) as T;
    },
    async batch<T>(calls: RpcCall[]) {
      return calls.map((call) => answer(call.method, call.params)) as T[];
    },
    async batchAccepting<T>(calls: RpcCall[], accept: (error: RpcResponseError) => boolean) {
      return calls.map((call) => {
        try {
          return answer(call.method, call.params);
        } catch (error) {
          if (error instanceof RpcResponseError && accept(error)) return error;
          throw error;
        }
      }) as (T | RpcResponseError)[];
    },
  };
}
