/**
 * A deterministic synthetic chain for the API benchmark: every block, receipt and trace is a pure
 * function of its number (no state carried between blocks), so any range can be served in any order and
 * a stopped load resumes where it stopped. The shape at `transactions` = 10,000,000 (100 per block):
 *
 * - one hot address (an EIP-7702-style account: it sends transactions, is called, emits logs) in 10 % of
 *   all transactions: sends ETH, sends ERC-1155 (single and batch), is called (a `Deposit` log, an inner
 *   ERC-20 transfer to the caller and an inner ETH payment), receives ETH; it also receives one
 *   withdrawal per block;
 * - an ERC-20 whose holders claim once and transfer once (2 events per holder: 1 M holders, 2 M
 *   transfers, plus the hot address's payouts);
 * - an ERC-721 with 100,000 ids, each minted once and passed on in later rounds (ids held by the hot
 *   address never move);
 * - an ERC-1155 with 20,000 ids, all minted to the hot address in the first blocks, sent on one unit at a time;
 * - an ERC-404 active only in the oldest 1 % of transactions;
 * - a `Rescue` log topic on 1 in 1,000 of the hot address's logs;
 * - a cold pool of `transactions / 5` addresses for ETH transfers, multicalls (two inner payments),
 *   contract creations and reverted calls.
 *
 * Hashes are unique by construction (the last 4 bytes are the block number or the transaction's
 * ordinal), parents chain, log indexes are contiguous per block, gas and fees follow EIP-1559.
 */
import { encodeAbiParameters, type Hex, toEventSelector } from "viem";
import type { ParityTrace } from "../../src/rpc/trace_block.ts";
import type { RpcFullBlock, RpcReceipt } from "../../src/rpc/types.ts";

/** Bump when the chain's content changes: stored datasets of another version are rebuilt. */
export const syntheticChainVersion = 1;

export const transactionsPerBlock = 100;
const genesisTimestamp = 1_700_000_000;
const chainId = 900_001;
const nftIds = 100_000;
const multiTokenIds = 20_000;
const multiTokenBatch = 100;
/** The hot address's first transactions: one ERC-20 claim, then the ERC-1155 mint batches. */
const setupTransactions = 1 + multiTokenIds / multiTokenBatch;
const withdrawalsPerBlock = 16;
const claimAmount = 1000n * 10n ** 18n;
const hotErc20Supply = 10n ** 30n;
const multiTokenMinted = 1_000_000n;
const gwei = 1_000_000_000n;

const topics = {
  transfer: toEventSelector("Transfer(address,address,uint256)"),
  transferSingle: toEventSelector("TransferSingle(address,address,address,uint256,uint256)"),
  transferBatch: toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])"),
  deposit: toEventSelector("Deposit(address,uint256)"),
  rescue: toEventSelector("Rescue(address,uint256)"),
};
const selectors = {
  transfer: "a9059cbb",
  claim: "4e71d92d",
  mint: "a0712d68",
  transferFrom: "23b872dd",
  safeTransferFrom1155: "f242432a",
  safeBatchTransferFrom: "2eb2c2d6",
  mintBatch: "1f7fdffa",
  deposit: "d0e30db0",
  multicall: "ac9650d8",
  name: "06fdde03",
  symbol: "95d89b41",
  decimals: "313ce567",
  totalSupply: "18160ddd",
  supportsInterface: "01ffc9a7",
};
const zero = `0x${"0".repeat(40)}` as Hex;
const emptyBloom = `0x${"0".repeat(512)}` as Hex;
const emptyUnclesHash = "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347";
/** Runtime code of every contract: no DELEGATECALL byte, so no proxy is read. */
const contractCode = `0x6080604052${"60".repeat(60)}00` as Hex;

// 32-bit integer mixing (murmur3's finalizer over a combined key): fast, deterministic, well spread.
function mix(a: number, b: number, c = 0): number {
  let h =
    (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x6a09e667, 0xc2b2ae35) ^ (c * 0x27d4eb2f)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, "0");
}

/** 20 bytes: four mixed words and the id, unique per (namespace, id). */
function address(namespace: number, id: number): Hex {
  return `0x${hex8(mix(namespace, id, 1))}${hex8(mix(namespace, id, 2))}${hex8(mix(namespace, id, 3))}${hex8(mix(namespace, id, 4))}${hex8(id)}`;
}

/** 32 bytes: seven mixed words and the id, unique per (namespace, id). */
function hash(namespace: number, id: number): Hex {
  let text = "0x";
  for (let i = 1; i <= 7; i++) text += hex8(mix(namespace, id, i));
  return `${text}${hex8(id)}` as Hex;
}

function quantity(value: number | bigint): Hex {
  return `0x${value.toString(16)}`;
}

function word(value: number | bigint): string {
  return value.toString(16).padStart(64, "0");
}

function addressWord(value: Hex): string {
  return value.slice(2).padStart(64, "0");
}

function topicOf(value: Hex): Hex {
  return `0x${addressWord(value)}`;
}

const Namespace = {
  named: 1,
  cold: 2,
  holder: 3,
  created: 4,
  receiver: 5,
  block: 6,
  transaction: 7,
  signature: 8,
  miner: 9,
  root: 10,
} as const;

/** The chain's named accounts and contracts. */
export const namedAddresses = {
  hot: address(Namespace.named, 1),
  erc20: address(Namespace.named, 2),
  erc721: address(Namespace.named, 3),
  erc1155: address(Namespace.named, 4),
  erc404: address(Namespace.named, 5),
  multicall: address(Namespace.named, 6),
};
const contracts = new Set<string>([
  namedAddresses.erc20,
  namedAddresses.erc721,
  namedAddresses.erc1155,
  namedAddresses.erc404,
  namedAddresses.multicall,
]);

type Log = { address: Hex; topics: Hex[]; data: Hex };
type Frame = {
  type: "call" | "create";
  from: Hex;
  to: Hex | null;
  value: bigint;
  input: Hex;
  gas: number;
  gasUsed: number;
  output: Hex;
  created?: Hex;
  traceAddress: number[];
};
type Spec = {
  from: Hex;
  to: Hex | null;
  value: bigint;
  input: Hex;
  nonce: number;
  gas: number;
  gasUsed: number;
  logs: Log[];
  /** Frames below the top-level one, depth-first. */
  inner: Frame[];
  created?: Hex;
  failed?: boolean;
};

export type SyntheticBlock = { block: RpcFullBlock; receipts: RpcReceipt[]; traces: ParityTrace[] };

export type CreateSyntheticChainParameters = { transactions: number };

/** The chain for `transactions` (rounded up to whole blocks of 100). */
export function createSyntheticChain({ transactions }: CreateSyntheticChainParameters) {
  const blockCount = Math.ceil(transactions / transactionsPerBlock);
  const total = blockCount * transactionsPerBlock;
  const coldPool = Math.max(1_000, Math.floor(total / 5));
  const oldRounds = Math.max(1, Math.floor(total / 20 / 100));
  const cold = (key: number, salt: number) => address(Namespace.cold, mix(key, salt, 7) % coldPool);

  /** What transaction `g` (its ordinal in the chain) does. */
  function describe(g: number): Spec {
    if (g === 0) {
      return erc20Call(
        namedAddresses.hot,
        0,
        selectors.claim,
        [],
        transferLog(namedAddresses.erc20, zero, namedAddresses.hot, hotErc20Supply),
      );
    }
    if (g < setupTransactions) {
      const first = (g - 1) * multiTokenBatch;
      const ids = Array.from({ length: multiTokenBatch }, (_, i) => BigInt(first + i));
      const amounts = ids.map(() => multiTokenMinted);
      return {
        from: namedAddresses.hot,
        to: namedAddresses.erc1155,
        value: 0n,
        input: `0x${selectors.mintBatch}${word(first)}${word(multiTokenBatch)}` as Hex,
        nonce: g,
        gas: 3_000_000,
        gasUsed: 2_400_000,
        logs: [batchLog(namedAddresses.hot, zero, namedAddresses.hot, ids, amounts)],
        inner: [],
      };
    }
    const s = g - setupTransactions;
    const slot = s % 20;
    const round = Math.floor(s / 20);
    if (slot === 0 || slot === 10) return hotTransaction(Math.floor(s / 10), g);
    if (slot === 1 || slot === 2 || slot === 11 || slot === 12)
      return erc20Event(round * 4 + [1, 2, 11, 12].indexOf(slot));
    if (slot === 3 || slot === 13) return nftEvent(round * 2 + (slot === 3 ? 0 : 1), g);
    if (slot === 4 && round < oldRounds) return erc404Mint(round, g);
    if (slot === 5) return multicall(g);
    if (slot === 6 && round % 10 === 0) return creation(g);
    if (slot === 6 && round % 10 === 5) return reverted(g);
    return ethTransfer(cold(g, 1), cold(g, 2), g);
  }

  function hotTransaction(h: number, g: number): Spec {
    const hot = namedAddresses.hot;
    const sent = setupTransactions + Math.floor(h / 4) * 2 + (h % 4);
    switch (h % 4) {
      case 0:
        return { ...ethTransfer(hot, cold(g, 3), g), nonce: sent };
      case 1: {
        const recipient = cold(g, 4);
        const batch = h % 16 === 1;
        const id = (i: number) => BigInt(mix(h, i, 5) % multiTokenIds);
        const firstId = id(0);
        const ids = batch ? Array.from({ length: 5 }, (_, i) => id(i)) : [firstId];
        // In the order first seen, so `firstId` leads.
        const unique = [...new Set(ids)];
        const amounts = unique.map(() => 1n);
        return {
          from: hot,
          to: namedAddresses.erc1155,
          value: 0n,
          input:
            `0x${batch ? selectors.safeBatchTransferFrom : selectors.safeTransferFrom1155}${addressWord(hot)}${addressWord(recipient)}${word(firstId)}${word(1)}` as Hex,
          nonce: sent,
          gas: batch ? 200_000 : 90_000,
          gasUsed: batch ? 120_000 + unique.length * 8_000 : 56_000,
          logs: [
            batch
              ? batchLog(hot, hot, recipient, unique, amounts)
              : {
                  address: namedAddresses.erc1155,
                  topics: [topics.transferSingle, topicOf(hot), topicOf(hot), topicOf(recipient)],
                  data: `0x${word(firstId)}${word(1)}` as Hex,
                },
          ],
          inner: [],
        };
      }
      case 2: {
        const caller = cold(g, 5);
        const payee = cold(g, 6);
        const payout = 10n ** 18n + BigInt(mix(h, 1, 6));
        const rare = Math.floor(h / 4) % 1000 === 7;
        const transferInput = `0x${selectors.transfer}${addressWord(caller)}${word(payout)}` as Hex;
        return {
          from: caller,
          to: hot,
          value: 0n,
          input: `0x${selectors.deposit}` as Hex,
          nonce: mix(g, 0, 9) % 500,
          gas: 150_000,
          gasUsed: 96_000,
          logs: [
            transferLog(namedAddresses.erc20, hot, caller, payout),
            {
              address: hot,
              topics: [rare ? topics.rescue : topics.deposit, topicOf(caller)],
              data: `0x${word(payout)}` as Hex,
            },
          ],
          inner: [
            {
              type: "call",
              from: hot,
              to: namedAddresses.erc20,
              value: 0n,
              input: transferInput,
              gas: 60_000,
              gasUsed: 29_000,
              output: `0x${word(1)}` as Hex,
              traceAddress: [0],
            },
            {
              type: "call",
              from: hot,
              to: payee,
              value: gwei * BigInt(1 + (mix(h, 2, 6) % 100_000)),
              input: "0x",
              gas: 2_300,
              gasUsed: 0,
              output: "0x",
              traceAddress: [1],
            },
          ],
        };
      }
      default:
        return ethTransfer(cold(g, 7), hot, g);
    }
  }

  /** ERC-20 event `q`: even ones are holder q/2's claim, odd ones that holder's one transfer to an earlier holder. */
  function erc20Event(q: number): Spec {
    const j = Math.floor(q / 2);
    const holder = address(Namespace.holder, j);
    if (q % 2 === 0)
      return erc20Call(
        holder,
        0,
        selectors.claim,
        [],
        transferLog(namedAddresses.erc20, zero, holder, claimAmount),
      );
    const recipient = address(Namespace.holder, mix(q, 0, 8) % (j + 1));
    const amount = 10n ** 18n * BigInt(1 + (mix(q, 1, 8) % 999));
    return erc20Call(
      holder,
      1,
      selectors.transfer,
      [addressWord(recipient), word(amount)],
      transferLog(namedAddresses.erc20, holder, recipient, amount),
    );
  }

  function erc20Call(from: Hex, nonce: number, selector: string, args: string[], log: Log): Spec {
    return {
      from,
      to: namedAddresses.erc20,
      value: 0n,
      input: `0x${selector}${args.join("")}` as Hex,
      nonce,
      gas: 65_000,
      gasUsed: selector === selectors.claim ? 51_000 : 34_500,
      logs: [log],
      inner: [],
    };
  }

  /** ERC-721 event `q`: id q mod 100,000 in round q / 100,000 (round 0 mints); ids held by the hot address never move. */
  function nftEvent(q: number, g: number): Spec {
    const id = q % nftIds;
    const round = Math.floor(q / nftIds);
    const owner = (r: number) => (r === 0 && id % 50 === 0 ? namedAddresses.hot : cold(id, 100 + r));
    if (round > 0 && id % 50 === 0) return ethTransfer(cold(g, 1), cold(g, 2), g);
    const from = round === 0 ? zero : owner(round - 1);
    const to = owner(round);
    const log: Log = {
      address: namedAddresses.erc721,
      topics: [topics.transfer, topicOf(from), topicOf(to), `0x${word(id)}` as Hex],
      data: "0x",
    };
    return {
      from: round === 0 ? to : from,
      to: namedAddresses.erc721,
      value: 0n,
      input: (round === 0
        ? `0x${selectors.mint}${word(id)}`
        : `0x${selectors.transferFrom}${addressWord(from)}${addressWord(to)}${word(id)}`) as Hex,
      nonce: round === 0 ? 0 : mix(g, 0, 9) % 500,
      gas: 120_000,
      gasUsed: round === 0 ? 92_000 : 58_000,
      logs: [log],
      inner: [],
    };
  }

  /** ERC-404 mint `p`: its ERC-20 side and its ERC-721 side, only in the oldest rounds. */
  function erc404Mint(p: number, g: number): Spec {
    const to = cold(g, 8);
    return {
      from: to,
      to: namedAddresses.erc404,
      value: 0n,
      input: `0x${selectors.mint}${word(1)}` as Hex,
      nonce: mix(g, 0, 9) % 500,
      gas: 200_000,
      gasUsed: 140_000,
      logs: [
        transferLog(namedAddresses.erc404, zero, to, 10n ** 18n),
        {
          address: namedAddresses.erc404,
          topics: [topics.transfer, topicOf(zero), topicOf(to), `0x${word(p + 1)}` as Hex],
          data: "0x",
        },
      ],
      inner: [],
    };
  }

  function multicall(g: number): Spec {
    const from = cold(g, 9);
    const payees = [cold(g, 10), cold(g, 11)] as const;
    return {
      from,
      to: namedAddresses.multicall,
      value: 2n * 10n ** 15n,
      input:
        `0x${selectors.multicall}${word(32)}${word(2)}${addressWord(payees[0])}${addressWord(payees[1])}` as Hex,
      nonce: mix(g, 0, 9) % 500,
      gas: 100_000,
      gasUsed: 71_000,
      logs: [],
      inner: payees.map((payee, i) => ({
        type: "call",
        from: namedAddresses.multicall,
        to: payee,
        value: 10n ** 15n,
        input: "0x",
        gas: 2_300,
        gasUsed: 0,
        output: "0x",
        traceAddress: [i],
      })),
    };
  }

  function creation(g: number): Spec {
    return {
      from: cold(g, 12),
      to: null,
      value: 0n,
      input: `0x6080604052${"00".repeat(200)}` as Hex,
      nonce: mix(g, 0, 9) % 500,
      gas: 600_000,
      gasUsed: 420_000,
      logs: [],
      inner: [],
      created: address(Namespace.created, g),
    };
  }

  function reverted(g: number): Spec {
    return { ...multicall(g), gasUsed: 31_000, inner: [], failed: true };
  }

  function ethTransfer(from: Hex, to: Hex, g: number): Spec {
    return {
      from,
      to,
      value: 10n ** 14n * BigInt(1 + (mix(g, 3, 9) % 100_000)),
      input: "0x",
      nonce: mix(g, 0, 9) % 500,
      gas: 21_000,
      gasUsed: 21_000,
      logs: [],
      inner: [],
    };
  }

  function blockHash(n: number): Hex {
    return hash(Namespace.block, n);
  }

  /** Block `n` with its receipts and Parity traces. */
  function block(n: number): SyntheticBlock {
    const hashOfBlock = blockHash(n);
    const baseFee = gwei * BigInt(8 + (mix(n, 0, 11) % 12));
    const count = n === 0 ? 0 : transactionsPerBlock;
    const transactions: RpcFullBlock["transactions"] = [];
    const receipts: RpcReceipt[] = [];
    const traces: ParityTrace[] = [];
    let cumulative = 0;
    let logIndex = 0;
    const number = quantity(n);
    for (let t = 0; t < count; t++) {
      const g = (n - 1) * transactionsPerBlock + t;
      const spec = describe(g);
      const txHash = hash(Namespace.transaction, g);
      const priority = (gwei / 10n) * BigInt(1 + (mix(g, 4, 9) % 20));
      const effective = baseFee + priority;
      cumulative += spec.gasUsed;
      transactions.push({
        hash: txHash,
        blockHash: hashOfBlock,
        blockNumber: number,
        transactionIndex: quantity(t),
        from: spec.from,
        to: spec.to,
        value: quantity(spec.value),
        input: spec.input,
        nonce: quantity(spec.nonce),
        gas: quantity(spec.gas),
        gasPrice: quantity(effective),
        maxFeePerGas: quantity(baseFee * 2n + priority),
        maxPriorityFeePerGas: quantity(priority),
        type: "0x2",
        chainId: quantity(chainId),
        accessList: [],
        v: quantity(mix(g, 5, 9) & 1),
        yParity: quantity(mix(g, 5, 9) & 1),
        r: hash(Namespace.signature, g * 2),
        s: hash(Namespace.signature, g * 2 + 1),
      } as unknown as RpcFullBlock["transactions"][number]);
      const logs = (spec.failed ? [] : spec.logs).map((log) => ({
        address: log.address,
        topics: log.topics,
        data: log.data,
        blockNumber: number,
        blockHash: hashOfBlock,
        transactionHash: txHash,
        transactionIndex: quantity(t),
        logIndex: quantity(logIndex++),
        removed: false,
      }));
      receipts.push({
        transactionHash: txHash,
        transactionIndex: quantity(t),
        blockHash: hashOfBlock,
        blockNumber: number,
        from: spec.from,
        to: spec.to,
        cumulativeGasUsed: quantity(cumulative),
        gasUsed: quantity(spec.gasUsed),
        effectiveGasPrice: quantity(effective),
        contractAddress: spec.created ?? null,
        logs,
        logsBloom: emptyBloom,
        status: spec.failed ? "0x0" : "0x1",
        type: "0x2",
      } as unknown as RpcReceipt);
      const common = {
        transactionHash: txHash,
        transactionPosition: t,
        blockHash: hashOfBlock,
        blockNumber: n,
      };
      const top: ParityTrace = spec.created
        ? {
            type: "create",
            action: {
              from: spec.from,
              value: quantity(spec.value),
              gas: quantity(spec.gas - 53_000),
              init: spec.input,
              creationMethod: "create",
            },
            result: { address: spec.created, code: contractCode, gasUsed: quantity(spec.gasUsed - 53_000) },
            traceAddress: [],
            subtraces: 0,
            ...common,
          }
        : {
            type: "call",
            action: {
              callType: "call",
              from: spec.from,
              to: spec.to ?? undefined,
              value: quantity(spec.value),
              gas: quantity(spec.gas - 21_000),
              input: spec.input,
            },
            result: spec.failed ? null : { gasUsed: quantity(spec.gasUsed - 21_000), output: "0x" },
            ...(spec.failed ? { error: "Reverted" } : {}),
            traceAddress: [],
            subtraces: spec.inner.length,
            ...common,
          };
      traces.push(top);
      for (const frame of spec.inner) {
        traces.push({
          type: "call",
          action: {
            callType: "call",
            from: frame.from,
            to: frame.to ?? undefined,
            value: quantity(frame.value),
            gas: quantity(frame.gas),
            input: frame.input,
          },
          result: { gasUsed: quantity(frame.gasUsed), output: frame.output },
          traceAddress: frame.traceAddress,
          subtraces: 0,
          ...common,
        });
      }
    }
    const withdrawals =
      n === 0
        ? []
        : Array.from({ length: withdrawalsPerBlock }, (_, j) => {
            const index = (n - 1) * withdrawalsPerBlock + j;
            const validator = index % 400_000;
            return {
              index: quantity(index),
              validatorIndex: quantity(validator),
              address: j === 0 ? namedAddresses.hot : address(Namespace.receiver, validator % 20_000),
              amount: quantity(10_000_000 + (mix(index, 0, 12) % 40_000_000)),
            };
          });
    const block = {
      number,
      hash: hashOfBlock,
      parentHash: n === 0 ? `0x${"0".repeat(64)}` : blockHash(n - 1),
      timestamp: quantity(genesisTimestamp + 12 * n),
      miner: address(Namespace.miner, n % 10),
      gasLimit: quantity(30_000_000),
      gasUsed: quantity(cumulative),
      baseFeePerGas: quantity(baseFee),
      difficulty: "0x0",
      totalDifficulty: "0x0",
      size: quantity(600 + count * 180),
      nonce: "0x0000000000000000",
      extraData: "0x7379",
      mixHash: hash(Namespace.root, n * 4),
      sha3Uncles: emptyUnclesHash,
      stateRoot: hash(Namespace.root, n * 4 + 1),
      transactionsRoot: hash(Namespace.root, n * 4 + 2),
      receiptsRoot: hash(Namespace.root, n * 4 + 3),
      logsBloom: emptyBloom,
      blobGasUsed: "0x0",
      excessBlobGas: "0x0",
      parentBeaconBlockRoot: hash(Namespace.root, n * 4),
      withdrawalsRoot: hash(Namespace.root, n * 4 + 2),
      withdrawals,
      transactions,
      uncles: [],
    } as unknown as RpcFullBlock;
    return { block, receipts, traces };
  }

  /** How many events of the ERC-20 stream (claims and holder transfers) happened in transactions 0..g. */
  function erc20EventsThrough(g: number): number {
    const s = g - setupTransactions + 1;
    if (s <= 0) return 0;
    const rounds = Math.floor(s / 20);
    const rest = s % 20;
    return rounds * 4 + [1, 2, 11, 12].filter((slot) => slot < rest).length;
  }

  function nftEventsThrough(g: number): number {
    const s = g - setupTransactions + 1;
    if (s <= 0) return 0;
    return Math.floor(s / 20) * 2 + [3, 13].filter((slot) => slot < s % 20).length;
  }

  /** The answer of a token's view function at the end of block `n`, or `0x` (what a missing function gives). */
  function call(to: string, data: string, n: number): Hex {
    const selector = data.slice(2, 10);
    const last = n * transactionsPerBlock - 1;
    const token = tokenDescriptions[to.toLowerCase()];
    if (!token) return "0x";
    if (selector === selectors.name) return encodeAbiParameters([{ type: "string" }], [token.name]);
    if (selector === selectors.symbol) return encodeAbiParameters([{ type: "string" }], [token.symbol]);
    if (selector === selectors.decimals)
      return token.decimals === null
        ? "0x"
        : encodeAbiParameters([{ type: "uint256" }], [BigInt(token.decimals)]);
    if (selector === selectors.supportsInterface) {
      const id = `0x${data.slice(10, 18)}`;
      return encodeAbiParameters([{ type: "bool" }], [token.interfaces.includes(id)]);
    }
    if (selector === selectors.totalSupply) {
      if (to === namedAddresses.erc20)
        return encodeAbiParameters(
          [{ type: "uint256" }],
          [hotErc20Supply + claimAmount * BigInt(Math.ceil(erc20EventsThrough(last) / 2))],
        );
      if (to === namedAddresses.erc721)
        return encodeAbiParameters([{ type: "uint256" }], [BigInt(Math.min(nftIds, nftEventsThrough(last)))]);
      if (to === namedAddresses.erc404) {
        const s = last - setupTransactions + 1;
        const mints = s <= 0 ? 0 : Math.min(oldRounds, Math.floor(s / 20) + (s % 20 > 4 ? 1 : 0));
        return encodeAbiParameters([{ type: "uint256" }], [10n ** 18n * BigInt(mints)]);
      }
    }
    return "0x";
  }

  /** Runtime code at `address`: the named contracts and created ones hold code, everything else none. */
  function code(at: string): Hex {
    return contracts.has(at.toLowerCase()) ? contractCode : "0x";
  }

  const shape = {
    transactions: total,
    blocks: blockCount + 1,
    coldAddresses: coldPool,
    hotAddressTransactions: Math.floor((total - setupTransactions) / 10) + setupTransactions,
    erc20Holders: Math.ceil(erc20EventsThrough(total - 1) / 2),
    erc20Transfers: erc20EventsThrough(total - 1),
    erc721Ids: Math.min(nftIds, nftEventsThrough(total - 1)),
    erc721Transfers: nftEventsThrough(total - 1),
    erc1155Ids: multiTokenIds,
    erc404Mints: oldRounds,
    erc404LastBlock: Math.ceil((setupTransactions + oldRounds * 20) / transactionsPerBlock),
    withdrawals: blockCount * withdrawalsPerBlock,
  };

  return {
    chainId,
    head: blockCount,
    block,
    blockHash,
    call,
    code,
    shape,
    addresses: namedAddresses,
    topics,
  };
}

export type SyntheticChain = ReturnType<typeof createSyntheticChain>;

const tokenDescriptions: Record<
  string,
  { name: string; symbol: string; decimals: number | null; interfaces: string[] }
> = {
  [namedAddresses.erc20]: { name: "Bench Dollar", symbol: "BUSD", decimals: 18, interfaces: [] },
  [namedAddresses.erc721]: {
    name: "Bench Punks",
    symbol: "BPUNK",
    decimals: null,
    interfaces: ["0x80ac58cd"],
  },
  [namedAddresses.erc1155]: {
    name: "Bench Items",
    symbol: "BITEM",
    decimals: null,
    interfaces: ["0xd9b67a26"],
  },
  [namedAddresses.erc404]: {
    name: "Bench Pandora",
    symbol: "BPAN",
    decimals: 18,
    interfaces: ["0x80ac58cd"],
  },
};

function transferLog(token: Hex, from: Hex, to: Hex, amount: bigint): Log {
  return {
    address: token,
    topics: [topics.transfer, topicOf(from), topicOf(to)],
    data: `0x${word(amount)}` as Hex,
  };
}

function batchLog(operator: Hex, from: Hex, to: Hex, ids: bigint[], amounts: bigint[]): Log {
  return {
    address: namedAddresses.erc1155,
    topics: [topics.transferBatch, topicOf(operator), topicOf(from), topicOf(to)],
    data: encodeAbiParameters([{ type: "uint256[]" }, { type: "uint256[]" }], [ids, amounts]),
  };
}
