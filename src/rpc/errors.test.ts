import { describe, expect, it } from "vitest";
import { isHistoryUnavailable, isStateUnavailable, RpcResponseError } from "./errors.ts";

const answer = (method: string, code: number, message: string) =>
  new RpcResponseError({ method, code, message });

describe("isHistoryUnavailable", () => {
  it("takes a block, receipt or trace call the node has no history for as final, and a state read as not", () => {
    const gone = [
      // A full geth past its 128 blocks of state (hash scheme, path scheme).
      answer("debug_traceBlockByNumber", -32000, "required historical state unavailable (reexec=128)"),
      answer("debug_traceBlockByHash", -32000, "historical state not available in path scheme yet"),
      answer("trace_block", -32000, "missing trie node 5b9f7f1c0b1e4d6a (path )"),
      // A node that dropped old bodies and receipts (EIP-4444).
      answer("eth_getBlockByNumber", 4444, "pruned history unavailable"),
      answer("eth_getBlockReceipts", 4444, "pruned history unavailable"),
      answer("eth_getTransactionReceipt", -32000, "old data not available due to pruning"),
    ];
    for (const error of gone) {
      expect(isHistoryUnavailable(error), error.shortMessage).toBe(true);
      expect(error.retryable, error.shortMessage).toBe(false);
    }
    const passing = [
      answer("eth_getBlockByNumber", -32000, "header not found"),
      answer("debug_traceBlockByNumber", -32000, "execution timeout"),
      // readState asks a state read the node cannot answer at its block again at the head.
      answer("eth_getCode", -32000, "missing trie node 5b9f7f1c0b1e4d6a (path )"),
    ];
    for (const error of passing) {
      expect(isHistoryUnavailable(error), error.shortMessage).toBe(false);
      expect(error.retryable, error.shortMessage).toBe(true);
    }
    expect(isStateUnavailable(passing[2])).toBe(true);
  });
});
