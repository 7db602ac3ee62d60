import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Hex, keccak256, parseTransaction, zeroHash } from "viem";
import { beforeAll, describe, expect, inject, test } from "vitest";
import { at, only } from "../../test/support/elements.ts";
import { recordedResult, rpcFixturesDirectory } from "../../test/support/rpc-recordings.ts";
import type { ScenarioResult } from "../demo/scenario.ts";
import { required } from "../required.ts";
import { createRpcClient } from "../rpc/client.ts";
import type { CallFrame } from "../rpc/debug_traceBlockByNumber.ts";
import { RpcInvalidAnswerError } from "../rpc/errors.ts";
import type { ParityTrace } from "../rpc/trace_block.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import {
  type CallTracerEntry,
  type InternalTransaction,
  mapCallTracerBlock,
  mapParityBlock,
  namedTransaction,
  normalizeTraceError,
  parentRevertedError,
  type TransactionContext,
} from "./map-traces.ts";

const gethCases = join(rpcFixturesDirectory, "geth-calltracer");

type GethCase = { input: Hex; result: CallFrame };

/** A go-ethereum callTracer test case (`result` is the tracer's answer to the transaction `input`). */
function readGethCase(file: string): GethCase {
  return JSON.parse(readFileSync(join(gethCases, file), "utf8"));
}

/** The answer of an erigon rpc-tests recording. */
function recorded<T>(name: string): T {
  return recordedResult<T>(`erigon-mainnet/${name}`);
}

/** Frames of a call tree in depth-first order with their trace addresses, computed independently. */
function walk(frame: CallFrame, traceAddress: number[] = []): { frame: CallFrame; traceAddress: number[] }[] {
  return [
    { frame, traceAddress },
    ...(frame.calls ?? []).flatMap((call, i) => walk(call, [...traceAddress, i])),
  ];
}

/** Whether a recorded frame sits below a frame that reported an error. */
function failedAncestors(frame: CallFrame, inherited = false, into = new Map<CallFrame, boolean>()) {
  into.set(frame, inherited);
  for (const call of frame.calls ?? []) failedAncestors(call, inherited || !!frame.error, into);
  return into;
}

/** Indexes count up from 0 and trace addresses form a depth-first walk of one tree. */
function expectDepthFirst(rows: InternalTransaction[]) {
  expect(at(rows, 0).traceAddress).toEqual([]);
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    expect(row.index).toBe(i);
    if (i > 0) {
      const parent = row.traceAddress.slice(0, -1);
      const position = at(row.traceAddress, -1);
      expect(seen.has(parent.join(","))).toBe(true);
      if (position > 0) expect(seen.has([...parent, position - 1].join(","))).toBe(true);
      // Depth-first order is the lexicographic order of trace addresses.
      expect(compareAddresses(at(rows, i - 1).traceAddress, row.traceAddress)).toBeLessThan(0);
    }
    seen.add(row.traceAddress.join(","));
  });
}

function compareAddresses(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return at(a, i) - at(b, i);
  return a.length - b.length;
}

const lowercaseAddress = /^0x[0-9a-f]{40}$/;

function expectLowercase(row: InternalTransaction) {
  expect(row.from).toMatch(lowercaseAddress);
  if (row.to !== null) expect(row.to).toMatch(lowercaseAddress);
  if (row.createdContract !== null) expect(row.createdContract).toMatch(lowercaseAddress);
  expect(row.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
}

/** What each go-ethereum test case must show beyond the checks every case gets. */
const gethExpectations: Record<string, (rows: InternalTransaction[], fixture: GethCase) => void> = {
  "blob_tx.json": (rows) => {
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: "call",
      gas: 21_000n,
      gasUsed: 21_000n,
      input: "0x",
      output: "0x",
    });
  },
  "create.json": (rows, { result }) => {
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: "create",
      to: null,
      createdContract: "0x7dc9c9730689ff0b0fd506c67db815f12d90a448",
      input: result.input,
      output: result.output,
      error: null,
    });
  },
  "deep_calls.json": (rows) => {
    expect(new Set(rows.map((row) => row.type))).toEqual(new Set(["call"]));
    expect(Math.max(...rows.map((row) => row.traceAddress.length))).toBe(4);
    expect(rows.every((row) => row.error === null && row.gasUsed !== null)).toBe(true);
  },
  "delegatecall.json": (rows) => {
    expect(rows.map((row) => [row.type, row.traceAddress])).toEqual([
      ["call", []],
      ["call", [0]],
      ["delegatecall", [0, 0]],
    ]);
    expect(at(rows, 2).to).toBe("0x42b02b5deeb78f34cd5ac896473b63e6c99a71a2");
  },
  "inner_create_oog_outer_throw.json": (rows) => {
    expect(rows[0]).toMatchObject({
      type: "call",
      error: "invalid jump destination",
      gasUsed: null,
      output: null,
    });
    // geth: "contract creation code storage out of gas"; Parity-style nodes: "Out of gas".
    expect(rows[1]).toMatchObject({
      type: "create",
      to: null,
      createdContract: null,
      error: "out of gas",
      gas: 0x39ff0n,
      gasUsed: null,
      output: null,
    });
    expect(at(rows, 1).input.length).toBeGreaterThan(1000);
  },
  "inner_instafail.json": (rows) => {
    expect(at(rows, 0).error).toBeNull();
    expect(rows[1]).toMatchObject({
      type: "call",
      value: 0x14d1120d7b160000n,
      error: "insufficient balance for transfer",
      gasUsed: null,
    });
  },
  "inner_revert_reason.json": (rows) => {
    expect(rows.map((row) => [row.type, row.error])).toEqual([
      ["create", "reverted"],
      // Succeeded itself, but its parent reverted: Blockscout drops its result.
      ["create", parentRevertedError],
      // Its own error wins over the parent's.
      ["staticcall", "reverted"],
    ]);
    expect(rows[1]).toMatchObject({ createdContract: null, output: null, gasUsed: null, gas: 0x2ba851n });
    expect(at(rows, 0).createdContract).toBeNull();
    expect(at(rows, 2).value).toBe(0n);
  },
  "inner_throw_outer_revert.json": (rows) => {
    expect(rows.map((row) => row.error)).toEqual(["reverted", "invalid opcode"]);
    expect(at(rows, 0).value).toBe(0xe92596fd6290000n);
  },
  "oog.json": (rows) => {
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ error: "out of gas", gas: 51_741n, gasUsed: null, output: null });
  },
  "revert.json": (rows) => {
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ error: "reverted", gasUsed: null, output: null });
  },
  "revert_reason.json": (rows, { result }) => {
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ error: "reverted", output: null });
    // What it reverted with is kept apart: Error("Self-delegation is disallowed.").
    expect(result.output).toMatch(/^0x08c379a0/);
    expect(at(rows, 0).revertOutput).toBe(result.output);
  },
  "selfdestruct.json": (rows) => {
    expect(rows[1]).toEqual({
      ...at(rows, 1),
      type: "selfdestruct",
      traceAddress: [0],
      from: "0x3b873a919aa0512d5a0f09e6dcceaa4a6727fafe",
      to: "0x000000000000000000000000000000000000dead",
      createdContract: null,
      value: 0x4d87094125a369d9bd5n,
      gas: null,
      gasUsed: null,
      input: "0x",
      output: null,
      error: null,
    });
  },
  "simple.json": (rows) => {
    expect(rows).toHaveLength(2);
    // callTracer leaves out an empty output; a successful frame still returned "0x".
    expect(rows[1]).toMatchObject({ type: "call", value: 0x6f05b59d3b20000n, output: "0x", gasUsed: 0n });
    expect(rows[0]).toMatchObject({ gas: 90_000n, gasUsed: 0x9751n });
  },
  "simple_onlytop.json": (rows) => {
    expect(rows).toHaveLength(1);
  },
  "throw.json": (rows) => {
    expect(rows).toHaveLength(1);
    expect(at(rows, 0).error).toBe("invalid jump destination");
  },
};

describe("mapCallTracerBlock on go-ethereum's callTracer test cases", () => {
  const files = readdirSync(gethCases).filter((file) => file.endsWith(".json"));

  test("every case has its expectations", () => {
    expect(files.sort()).toEqual(Object.keys(gethExpectations).sort());
  });

  test.each(files)("%s", (file) => {
    const fixture = readGethCase(file);
    const transaction = parseTransaction(fixture.input);
    // geth's top frame carries the receipt's gasUsed, the only figure the case has of it.
    const context: TransactionContext = {
      hash: keccak256(fixture.input),
      gas: transaction.gas as bigint,
      gasUsed: BigInt(fixture.result.gasUsed as Hex),
    };
    const rows = only(mapCallTracerBlock([{ result: fixture.result }], [context]));

    const recordedFrames = walk(fixture.result);
    expect(rows).toHaveLength(recordedFrames.length);
    expect(rows.map((row) => row.type)).toEqual(recordedFrames.map(({ frame }) => frame.type.toLowerCase()));
    expect(rows.map((row) => row.traceAddress)).toEqual(
      recordedFrames.map(({ traceAddress }) => traceAddress),
    );
    expectDepthFirst(rows);
    for (const row of rows) {
      expectLowercase(row);
      expect(row).toMatchObject({ transactionIndex: 0, transactionHash: context.hash });
      // A failed frame keeps no result, whichever tracer reported it.
      if (row.error !== null)
        expect([row.gasUsed, row.output, row.createdContract]).toEqual([null, null, null]);
      expect(row.revertOutput !== null).toBe(row.error === "reverted");
    }
    // Real geth already reports the gas limit on the top frame.
    expect(at(rows, 0).gas).toBe(transaction.gas);
    expect(at(rows, 0).gas).toBe(BigInt(fixture.result.gas as Hex));
    required(gethExpectations[file], `expectations of ${file}`)(rows, fixture);
  });

  test("without context the top frame keeps the tracer's own figures and the hash comes from txHash", () => {
    const fixture = readGethCase("simple.json");
    const txHash = keccak256(fixture.input);
    const withContext = only(
      mapCallTracerBlock([{ result: fixture.result }], [{ hash: txHash, gas: 1n, gasUsed: 2n }]),
    );
    const without = only(mapCallTracerBlock([{ txHash, result: fixture.result }]));
    expect([at(withContext, 0).gas, at(withContext, 0).gasUsed]).toEqual([1n, 2n]);
    expect([at(without, 0).gas, at(without, 0).gasUsed]).toEqual([90_000n, 0x9751n]);
    expect(without.slice(1)).toEqual(withContext.slice(1));
  });

  test("an unknown frame type is skipped with its subtree", () => {
    const rows = only(
      mapCallTracerBlock([
        {
          txHash: `0x${"ab".repeat(32)}`,
          result: {
            type: "CALL",
            from: `0x${"01".repeat(20)}`,
            to: `0x${"02".repeat(20)}`,
            calls: [
              {
                type: "STOP",
                from: `0x${"02".repeat(20)}`,
                calls: [{ type: "CALL", from: `0x${"03".repeat(20)}` }],
              },
              { type: "STATICCALL", from: `0x${"02".repeat(20)}`, to: `0x${"04".repeat(20)}` },
            ],
          },
        },
      ]),
    );
    expect(rows.map((row) => [row.index, row.type, row.traceAddress])).toEqual([
      [0, "call", []],
      [1, "staticcall", [1]],
    ]);
  });

  test("a transaction the node could not trace, or traces of other transactions, are refetched", () => {
    const hash: Hex = `0x${"ab".repeat(32)}`;
    const result: CallFrame = { type: "CALL", from: `0x${"01".repeat(20)}`, to: `0x${"02".repeat(20)}` };
    const context = { hash, gas: 21_000n, gasUsed: 21_000n };
    expect(() => mapCallTracerBlock([{ txHash: hash, error: "execution timeout" }], [context])).toThrow(
      RpcInvalidAnswerError,
    );
    // A timeout says which setting lets the node take longer.
    expect(() => mapCallTracerBlock([{ txHash: hash, error: "execution timeout" }], [context])).toThrow(
      /--trace-timeout or ETHEREUM_JSONRPC_DEBUG_TRACE_TRANSACTION_TIMEOUT/,
    );
    expect(() => mapCallTracerBlock([{ txHash: hash, error: "out of memory" }], [context])).toThrow(
      /^callTracer could not trace transaction 0x(ab)+: out of memory$/,
    );
    expect(() => mapCallTracerBlock([{ txHash: `0x${"cd".repeat(32)}`, result }], [context])).toThrow(
      RpcInvalidAnswerError,
    );
    expect(() => mapCallTracerBlock([{ result }], [context, context])).toThrow(RpcInvalidAnswerError);
    expect(() => mapCallTracerBlock([{ result }])).toThrow(/names no transaction hash/);
  });

  test("a zero txHash (op-geth before Bedrock) names no transaction: the hash comes from the block", () => {
    const hash: Hex = `0x${"ab".repeat(32)}`;
    const result: CallFrame = { type: "CALL", from: `0x${"01".repeat(20)}`, to: `0x${"02".repeat(20)}` };
    const rows = only(mapCallTracerBlock([{ txHash: zeroHash, result }], [{ hash, gas: 1n, gasUsed: 1n }]));
    expect(at(rows, 0).transactionHash).toBe(hash);
    expect(namedTransaction({ txHash: zeroHash })).toBeUndefined();
    expect(namedTransaction({ txHash: hash })).toBe(hash);
    expect(() => mapCallTracerBlock([{ txHash: zeroHash, result }])).toThrow(/names no transaction hash/);
  });
});

describe("mapCallTracerBlock on a recorded mainnet block (erigon, 361 transactions)", () => {
  const recording = recorded<CallTracerEntry[]>("debug_traceBlockByNumber__test_51.json");
  const mapped = mapCallTracerBlock(recording);

  test("maps every frame of every transaction", () => {
    expect(recording).toHaveLength(361);
    expect(mapped).toHaveLength(361);
    const frames = recording.map((entry) => walk(entry.result as CallFrame));
    expect(mapped.map((rows) => rows.length)).toEqual(frames.map((list) => list.length));
    expect(mapped.flat()).toHaveLength(1758);
    mapped.forEach((rows, t) => {
      expectDepthFirst(rows);
      const transactionFrames = at(frames, t);
      expect(rows.map((row) => row.traceAddress)).toEqual(
        transactionFrames.map(({ traceAddress }) => traceAddress),
      );
      expect(rows.map((row) => row.type)).toEqual(
        transactionFrames.map(({ frame }) => frame.type.toLowerCase()),
      );
      for (const row of rows) {
        expectLowercase(row);
        expect(row.transactionIndex).toBe(t);
        expect(row.transactionHash).toBe(at(recording, t).txHash);
      }
    });
  });

  test("own errors are normalized and frames below a failed frame say so", () => {
    let own = 0;
    let inherited = 0;
    recording.forEach((entry, t) => {
      const ancestors = failedAncestors(entry.result as CallFrame);
      const rows = at(mapped, t);
      walk(entry.result as CallFrame).forEach(({ frame }, i) => {
        const row = at(rows, i);
        if (frame.error) {
          own++;
          expect(frame.error).toBe("execution reverted");
          expect(row.error).toBe("reverted");
        } else if (ancestors.get(frame)) {
          inherited++;
          expect(row.error).toBe(parentRevertedError);
        } else {
          expect(row.error).toBeNull();
          expect(row.gasUsed).toBe(BigInt(frame.gasUsed as Hex));
        }
      });
    });
    expect(own).toBe(18);
    expect(inherited).toBeGreaterThan(0);
  });
});

describe("mapParityBlock on a recorded mainnet block (erigon trace_block)", () => {
  const recording = recorded<ParityTrace[]>("trace_block__test_26.json");
  const withRewards = recorded<ParityTrace[]>("trace_block__test_28.json");
  const mapped = mapParityBlock(recording);

  test("keeps every transaction frame, in order, with its trace address", () => {
    const byTransaction = new Map<number, ParityTrace[]>();
    for (const trace of recording) {
      if (trace.transactionPosition == null) continue;
      byTransaction.set(trace.transactionPosition, [
        ...(byTransaction.get(trace.transactionPosition) ?? []),
        trace,
      ]);
    }
    expect(mapped).toHaveLength(Math.max(...byTransaction.keys()) + 1);
    mapped.forEach((rows, t) => {
      const traces = byTransaction.get(t) ?? [];
      expect(rows).toHaveLength(traces.length);
      expect(rows.map((row) => row.traceAddress)).toEqual(traces.map((trace) => trace.traceAddress));
      expectDepthFirst(rows);
      for (const row of rows) {
        expectLowercase(row);
        expect(row).toMatchObject({ transactionIndex: t, transactionHash: at(traces, 0).transactionHash });
      }
    });
    expect(mapped.flat()).toHaveLength(recording.length);
  });

  test("maps types, errors and selfdestructs", () => {
    const rows = mapped.flat();
    const traces = recording.filter((trace) => trace.transactionPosition != null);
    const types = new Set<string>();
    traces.forEach((trace, i) => {
      const row = at(rows, i);
      types.add(row.type);
      if (trace.type === "call") expect(row.type).toBe(trace.action.callType);
      if (trace.type === "create") {
        expect(row.type).toBe(trace.action.creationMethod);
        expect(row).toMatchObject({
          to: null,
          createdContract: trace.result?.address,
          input: trace.action.init,
        });
      }
      if (trace.type === "suicide") {
        expect(row).toMatchObject({
          type: "selfdestruct",
          from: trace.action.address,
          to: trace.action.refundAddress,
          value: BigInt(trace.action.balance as Hex),
          gas: null,
          gasUsed: null,
          input: "0x",
          output: null,
        });
      }
      if (trace.error) expect(row.error).toBe(normalizeTraceError(trace.error));
      // erigon sends what a reverted call returned in `result.output`, as anvil does.
      if (trace.error === "Reverted" && trace.type === "call")
        expect(row.revertOutput).toBe(trace.result?.output);
    });
    expect(rows.filter((row) => row.revertOutput?.startsWith("0x08c379a0"))).not.toHaveLength(0);
    expect(types).toEqual(new Set(["call", "staticcall", "delegatecall", "create", "selfdestruct"]));
    expect(rows.filter((row) => row.error === "reverted")).toHaveLength(7);
    expect(rows.filter((row) => row.error === "out of gas")).toHaveLength(2);
    expect(rows.filter((row) => row.error === null)).toHaveLength(
      traces.filter((trace) => !trace.error).length -
        rows.filter((row) => row.error === parentRevertedError).length,
    );
  });

  test("skips block and withdrawal rewards", () => {
    expect(withRewards.filter((trace) => trace.type === "reward")).toHaveLength(16);
    expect(mapParityBlock(withRewards)).toEqual(mapped);
    const old = mapParityBlock(recorded<ParityTrace[]>("trace_block__test_03.json"));
    expect(old.flat().map((row) => [row.transactionIndex, row.index, row.error])).toEqual([
      [0, 0, null],
      [1, 0, "invalid opcode"],
    ]);
  });

  test("with context the top frame carries the gas limit and the receipt's gasUsed", () => {
    const contexts = mapped.map((rows) => ({
      hash: at(rows, 0).transactionHash,
      gas: 1_000_000n,
      gasUsed: 50_000n,
    }));
    const anchored = mapParityBlock(recording, contexts);
    anchored.forEach((rows, t) => {
      const top = at(rows, 0);
      expect(top.gas).toBe(1_000_000n);
      expect(top.gasUsed).toBe(top.error === null ? 50_000n : null);
      expect(rows.slice(1)).toEqual(at(mapped, t).slice(1));
    });
    const shuffled = [contexts[1], contexts[0], ...contexts.slice(2)];
    expect(() => mapParityBlock(recording, shuffled)).toThrow(RpcInvalidAnswerError);
    expect(() => mapParityBlock(recording, contexts.slice(1))).toThrow(RpcInvalidAnswerError);
  });

  test("a transaction without frames is a block the node has not traced: refetch", () => {
    const contexts = mapped.map((rows) => ({ hash: at(rows, 0).transactionHash, gas: 1n, gasUsed: 1n }));
    // A node that lacks the block answers [] (anvil) or null (erigon, taken as []).
    expect(() => mapParityBlock([], contexts)).toThrow(RpcInvalidAnswerError);
    const withoutLast = recording.filter((trace) => trace.transactionPosition !== contexts.length - 1);
    expect(withoutLast.length).toBeLessThan(recording.length);
    expect(() => mapParityBlock(withoutLast, contexts)).toThrow(RpcInvalidAnswerError);
    expect(mapParityBlock([], [])).toEqual([]);
  });
});

test("normalizeTraceError maps every node's wording to one text", () => {
  const cases: [string, string][] = [
    ["execution reverted", "reverted"],
    ["Reverted", "reverted"],
    ["Revert", "reverted"],
    ["out of gas", "out of gas"],
    ["Out of gas", "out of gas"],
    ["contract creation code storage out of gas", "out of gas"],
    ["MemoryOOG", "out of gas"],
    ["invalid opcode: INVALID", "invalid opcode"],
    ["invalid opcode: opcode 0xfe not defined", "invalid opcode"],
    ["Bad instruction", "invalid opcode"],
    ["Bad jump destination", "invalid jump destination"],
    ["stack underflow (0 <=> 6)", "stack underflow"],
    ["Stack underflow", "stack underflow"],
    ["stack limit reached 1024 (1023)", "stack limit reached"],
    ["Out of stack", "stack limit reached"],
    ["Mutable Call In Static Context", "write protection"],
    ["StateChangeDuringStaticCall", "write protection"],
    ["OutOfFunds", "insufficient balance for transfer"],
    ["CallTooDeep", "max call depth exceeded"],
    ["Built-in failed", "precompile failed"],
    ["precompiled failed", "precompile failed"],
    ["FatalExternalError", "fatal external error"],
    ["Internal error", "internal error"],
  ];
  expect(cases.map(([text]) => normalizeTraceError(text))).toEqual(cases.map(([, canonical]) => canonical));
});

describe("both tracers on the demo chain (anvil)", () => {
  type Scenario = {
    startBlockNumber: string;
    headBlockNumber: string;
    examples: ScenarioResult["examples"];
    failedTransactionHashes: Hex[];
  };
  const scenario = JSON.parse(inject("demoScenario")) as Scenario;
  let blocks: RpcFullBlock[];
  let receipts: RpcReceipt[][];
  let fromCallTracer: InternalTransaction[][];
  let fromParity: InternalTransaction[][];

  beforeAll(async () => {
    const client = createRpcClient({ url: inject("demoRpcUrl") });
    const numbers: Hex[] = [];
    for (let n = BigInt(scenario.startBlockNumber) + 1n; n <= BigInt(scenario.headBlockNumber); n++) {
      numbers.push(`0x${n.toString(16)}`);
    }
    const ask = <T>(method: string, extra: unknown[] = []) =>
      client.batch<T>(numbers.map((number) => ({ method, params: [number, ...extra] })));
    let callTraces: CallTracerEntry[][];
    let parityTraces: ParityTrace[][];
    [blocks, receipts, parityTraces, callTraces] = await Promise.all([
      ask<RpcFullBlock>("eth_getBlockByNumber", [true]),
      ask<RpcReceipt[]>("eth_getBlockReceipts"),
      ask<ParityTrace[]>("trace_block"),
      ask<CallTracerEntry[]>("debug_traceBlockByNumber", [{ tracer: "callTracer" }]),
    ]);
    fromCallTracer = [];
    fromParity = [];
    blocks.forEach((block, b) => {
      const blockReceipts = at(receipts, b);
      const contexts = block.transactions.map((transaction, t) => ({
        hash: transaction.hash,
        gas: BigInt(transaction.gas),
        gasUsed: BigInt(at(blockReceipts, t).gasUsed),
      }));
      fromCallTracer.push(...mapCallTracerBlock(at(callTraces, b), contexts));
      fromParity.push(...mapParityBlock(at(parityTraces, b), contexts));
    });
  });

  test("give identical rows", () => {
    // debug_traceBlockByNumber's cost grows with the square of a block's transactions on anvil: the demo
    // keeps its blocks small enough for it.
    expect(Math.max(...blocks.map((block) => block.transactions.length))).toBeLessThanOrEqual(50);
    expect(fromCallTracer.flat().length).toBeGreaterThan(1000);
    expect(fromCallTracer).toEqual(fromParity);
  });

  test("anchor each top frame to its transaction and receipt", () => {
    const transactions = blocks.flatMap((block) => block.transactions);
    const flatReceipts = receipts.flat();
    expect(fromParity).toHaveLength(transactions.length);
    fromParity.forEach((rows, i) => {
      expectDepthFirst(rows);
      rows.forEach(expectLowercase);
      const top = at(rows, 0);
      const transaction = at(transactions, i);
      const receipt = at(flatReceipts, i);
      expect(top.transactionHash).toBe(transaction.hash);
      expect(top.gas).toBe(BigInt(transaction.gas));
      const failed = receipt.status === "0x0";
      expect(top.error !== null).toBe(failed);
      expect(top.gasUsed).toBe(failed ? null : BigInt(receipt.gasUsed));
      if (transaction.to === null && !failed) {
        expect(top).toMatchObject({ type: "create", createdContract: receipt.contractAddress });
      }
    });
  });

  test("cover every kind of frame and failure the scenario makes", () => {
    const rows = fromParity.flat();
    const byHash = (hash: Hex) => rows.filter((row) => row.transactionHash === hash.toLowerCase());
    const topOf = (hash: Hex) => at(byHash(hash), 0, `frames of ${hash}`);
    const types = new Set(rows.map((row) => row.type));
    for (const type of ["call", "create", "create2", "selfdestruct", "delegatecall", "staticcall"] as const) {
      expect(types).toContain(type);
    }
    expect(rows.some((row) => row.index > 0 && row.value > 0n)).toBe(true);
    expect(rows.some((row) => row.traceAddress.length >= 2)).toBe(true);

    const { examples } = scenario;
    expect(
      byHash(examples.create2).some((row) => row.type === "create2" && row.createdContract !== null),
    ).toBe(true);
    const selfdestruct = byHash(examples.selfdestruct).find((row) => row.type === "selfdestruct");
    expect(selfdestruct).toMatchObject({ gas: null, gasUsed: null, input: "0x", output: null });
    expect(selfdestruct?.to).toMatch(lowercaseAddress);
    expect(topOf(examples.caughtInnerRevert).error).toBeNull();
    expect(byHash(examples.caughtInnerRevert).some((row) => row.index > 0 && row.error === "reverted")).toBe(
      true,
    );
    expect(topOf(examples.failedWithReason).error).toBe("reverted");
    expect(topOf(examples.failedWithCustomError).error).toBe("reverted");
    expect(topOf(examples.failedOutOfGas).error).toBe("out of gas");
    // Error(string) and Playground's RequestedFailure(address,uint256): selector, then the ABI words.
    expect(topOf(examples.failedWithReason).revertOutput).toMatch(/^0x08c379a0([0-9a-f]{64}){3,}$/);
    expect(topOf(examples.failedWithCustomError).revertOutput).toMatch(/^0x3cf2ee3d([0-9a-f]{64}){2}$/);
    expect(topOf(examples.failedOutOfGas).revertOutput).toBeNull();
    // The caught inner revert keeps its data on the inner frame; the transaction did not revert.
    expect(topOf(examples.caughtInnerRevert).revertOutput).toBeNull();
    expect(byHash(examples.caughtInnerRevert).some((row) => row.revertOutput?.startsWith("0x08c379a0"))).toBe(
      true,
    );
    for (const hash of scenario.failedTransactionHashes) expect(topOf(hash).error).not.toBeNull();
  });
});
