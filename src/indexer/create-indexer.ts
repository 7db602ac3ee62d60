import type { Address, Hash } from "viem";
import { defaultCompactIndexesAfter } from "../config.ts";
import { ensureChainIdentity } from "../db/chain-identity.ts";
import { readCheckpoint } from "../db/checkpoints.ts";
import type { Database } from "../db/client.ts";
import { compactIndexesIfWorthIt, dropAbandonedRebuilds } from "../db/compact-indexes.ts";
import { readSharedBuffers, smallSharedBuffersBytes } from "../db/server-settings.ts";
import { createRangeRows } from "../db/tables.ts";
import { recordHeartbeat, recordPastRpcIndexed } from "../db/user-operations-status.ts";
import { ChainDivergedError, readBlockHashes, rollBackTo, writeRange } from "../db/write-range.ts";
import { BaseError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { RpcClient } from "../rpc/client.ts";
import { RpcInvalidAnswerError } from "../rpc/errors.ts";
import { eth_blockNumber } from "../rpc/eth_blockNumber.ts";
import { eth_chainId } from "../rpc/eth_chainId.ts";
import { eth_getBlockByNumber } from "../rpc/eth_getBlockByNumber.ts";
import { probeBlockHashes, type StateBlock } from "../rpc/read-state.ts";
import type { RpcFullBlock } from "../rpc/types.ts";
import { sleep } from "../sleep.ts";
import { attachTokens } from "./attach-tokens.ts";
import { CallTracerIgnoredError, chooseTracer, type Tracer } from "./choose-tracer.ts";
import { fetchRange } from "./fetch-range.ts";
import { retryForever } from "./retry.ts";
import { scanStoredUserOperations } from "./scan-stored-user-operations.ts";
import { type TransformedRange, transformRange } from "./transform-range.ts";
import { canonicalEntryPoints, type EntryPoints } from "./user-operations.ts";

export type CreateIndexerParameters = {
  client: RpcClient;
  db: Database;
  logger: Logger;
  /** First block to index when the database is empty. */
  firstBlock?: bigint;
  /** Blocks per range (one fetch, one database transaction). */
  rangeSize?: number;
  /** Ranges fetched ahead of the writer. */
  concurrency?: number;
  pollIntervalMs?: number;
  /** Deepest reorganization followed; a deeper one stops the indexer rather than guess. */
  maxReorgDepth?: number;
  /** Source of internal transactions; `auto` asks the node which it offers. */
  tracer?: Tracer | "auto";
  /** How long callTracer may take over one transaction (a Go duration); the node's own limit without. */
  traceTimeout?: string;
  /** ERC-4337 entry points whose user operations are indexed; the canonical ones by default. */
  entryPoints?: EntryPoints;
  /**
   * How long one poll's heartbeat keeps the ERC-4337 status `live`; by default max(30 s, 3 poll
   * intervals), so a stopped indexer is reported as not live once it has aged.
   */
  liveTtlMs?: number;
  /**
   * Each time catch-up reaches the head, and while following each time the height doubles, with at least
   * this many transactions stored and the indexes never compacted or the chain's height doubled since, they
   * are rebuilt packed in the background (PostgreSQL; `compactIndexesIfWorthIt`); 0 never.
   */
  compactIndexesAfter?: number;
  /**
   * The only contracts whose WETH-style `Deposit` and `Withdrawal` are token transfers (Blockscout's
   * WHITELISTED_WETH_CONTRACTS with WETH_TOKEN_TRANSFERS_FILTERING_ENABLED); every contract's when absent.
   */
  wrappingContracts?: readonly Address[];
  /**
   * Blocks behind the node's head from which a sync is long enough for PostgreSQL's memory to matter, and a
   * small `shared_buffers` is warned of. Default 100,000: on a busy chain, millions of transactions (about a
   * fortnight of Ethereum's).
   */
  largeSyncBlocks?: bigint;
};

/**
 * Times a node's head is seen below a block before the block is taken to be gone from its chain: failed
 * reads of a range's state (about 12 s of the retry loop's backoff), or polls that find the stored tip above
 * the head. A load balancer's backend that lags gets that long to catch up; a chain that got shorter is
 * followed that much later.
 */
const blockGoneAfterFailures = 6;

/** The node's chain left the stored one further back than the configured depth. */
export class ReorgTooDeepError extends BaseError {
  override name = "ReorgTooDeepError";
  override readonly isUserError = true;
}

export type IndexerStatus = {
  /** Last block stored, null before the first. */
  indexedBlock: bigint | null;
  /** Latest head the node reported. */
  headBlock: bigint | null;
  /** True once catch-up reached the head and the indexer follows new blocks. */
  following: boolean;
  /** The tracer in use, known after `prepare`. */
  tracer: Tracer | null;
  /** Blocks and transactions written since the indexer was created. */
  blocksWritten: number;
  transactionsWritten: number;
  /** Compactions of the indexes finished since the indexer was created. */
  indexCompactions: number;
};

export type Indexer = {
  /**
   * Checks the node serves the chain the database holds (recording it on first use), and warns of a small
   * PostgreSQL `shared_buffers` before a long sync.
   */
  prepare(signal?: AbortSignal): Promise<void>;
  /** Indexes from the checkpoint up to `target` (default: the node's head now), then returns it. */
  catchUp(target?: bigint, signal?: AbortSignal): Promise<bigint | null>;
  /** Catches up, then follows new heads until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
  status(): IndexerStatus;
};

/**
 * Creates the block indexer: it catches up from the checkpoint to the head in ranges, fetching several
 * ranges ahead while the previous one is written, then polls for new heads. Each range is validated
 * before it is written and written in one transaction with its checkpoint.
 */
export function createIndexer({
  client,
  db,
  logger,
  firstBlock = 0n,
  rangeSize = 100,
  concurrency = 4,
  pollIntervalMs = 1_000,
  maxReorgDepth = 128,
  tracer: configuredTracer = "auto",
  traceTimeout,
  entryPoints = canonicalEntryPoints,
  liveTtlMs = Math.max(30_000, 3 * pollIntervalMs),
  compactIndexesAfter = defaultCompactIndexesAfter,
  wrappingContracts: wrappingContractList,
  largeSyncBlocks = 100_000n,
}: CreateIndexerParameters): Indexer {
  const wrappingContracts =
    wrappingContractList && new Set(wrappingContractList.map((address) => address.toLowerCase()));
  // What earlier ranges showed, to spare the node questions; a reorganization starts both afresh, since
  // ranges of the chain it leaves (some still in flight, holding the sets they were given) filled them.
  let knownContracts = new Set<Address>();
  let describedTokens = new Set<Address>();
  const state: IndexerStatus = {
    indexedBlock: null,
    headBlock: null,
    following: false,
    tracer: null,
    blocksWritten: 0,
    transactionsWritten: 0,
    indexCompactions: 0,
  };
  let compaction: Promise<void> | null = null;
  // While following block by block the indexer never passes from catching up to following again: it asks
  // each time the height it last asked at has doubled, so a chain that doubles is compacted anew.
  let compactionCheckAt: bigint | null = null;
  let abandonedRebuildsDropped = db.kind !== "postgres";
  let pastRpcRecorded = false;
  // Polls in a row that found the node's head below the stored tip (see blockGoneAfterFailures).
  let pollsWithTipAboveHead = 0;

  /** The node's chain id and genesis block, checked against (or, the first time, recorded as) the stored chain's. */
  async function ensureNodeChain(signal?: AbortSignal): Promise<RpcFullBlock> {
    const [chainId, [genesis]] = await Promise.all([
      retryForever(() => eth_chainId(client), { what: "eth_chainId", logger, signal }),
      retryForever(() => nodeBlocks([0n]), { what: "genesis block", logger, signal }),
    ]);
    await ensureChainIdentity(db, { chainId, genesisHash: (genesis as RpcFullBlock).hash as string });
    return genesis as RpcFullBlock;
  }

  async function prepare(signal?: AbortSignal) {
    const genesis = await ensureNodeChain(signal);
    await retryForever(() => probeBlockHashes(client, { number: 0n, hash: genesis.hash as Hash }), {
      what: "block hashes in state reads",
      logger,
      signal,
    });
    state.indexedBlock = await readCheckpoint(db);
    // Operations in logs stored before their entry point was configured; catch-up reads the rest.
    await scanStoredUserOperations(db, { entryPoints, logger });
    pastRpcRecorded = false;
    const probeBlock = await retryForever(() => eth_blockNumber(client), {
      what: "eth_blockNumber",
      logger,
      signal,
    });
    await adviseOnSharedBuffers(probeBlock);
    state.tracer = await retryForever(
      () => chooseTracer(client, { configured: configuredTracer, probeBlock }),
      {
        what: "choosing a tracer",
        logger,
        signal,
      },
    );
    if (state.tracer === "none") {
      logger.warn(
        "the node offers no tracer: internal transactions will be missing (blocks are marked untraced)",
      );
    } else {
      logger.info({ tracer: state.tracer }, "internal transactions from traces");
    }
  }

  /** Before a long sync, says so when PostgreSQL's `shared_buffers` would halve its write rate. */
  async function adviseOnSharedBuffers(head: bigint) {
    const behind = head - (state.indexedBlock ?? -1n);
    if (behind < largeSyncBlocks) return;
    const sharedBuffers = await readSharedBuffers(db);
    if (sharedBuffers === null || sharedBuffers >= smallSharedBuffersBytes) return;
    logger.warn(
      { sharedBuffersMiB: sharedBuffers / 1024 ** 2, blocksBehind: Number(behind) },
      "PostgreSQL's shared_buffers is small for this sync: past a few million transactions it writes at half the rate; see the README's PostgreSQL settings",
    );
  }

  /**
   * Fetches a range and turns it into rows at once, so that the transform runs while earlier ranges are
   * written; its tokens are read and attached when it is written (rowsOf).
   */
  async function fetchAndTransform(
    from: bigint,
    to: bigint,
    signal?: AbortSignal,
  ): Promise<TransformedRange> {
    for (;;) {
      const tracer = state.tracer ?? "none";
      try {
        const range = await retryForever(
          () =>
            fetchRange(client, {
              from,
              to,
              knownContracts,
              describedTokens,
              tracer,
              traceTimeout,
              wrappingContracts,
            }),
          { what: `blocks ${from}-${to}`, logger, signal },
        );
        return transformRange(range, { entryPoints });
      } catch (error) {
        if (!(error instanceof CallTracerIgnoredError) || configuredTracer !== "auto") throw error;
        // A node that runs callTracer for the probe but not for the range is left to the user to configure.
        if ((await chooseTracerAgain(tracer, error.block, signal)) === tracer) throw error;
      }
    }
  }

  // The choice under way after a range showed the tracer chosen is not run, shared by the ranges in flight.
  let choosingAgain: Promise<void> | null = null;

  /**
   * Chooses the tracer again, probing `block`, once the node turned out not to run the one `prepare`
   * chose (its probe block may have held no transaction to show it); ranges that met the same tracer wait
   * for that one choice.
   * @returns The tracer in use now.
   */
  async function chooseTracerAgain(failed: Tracer, block: bigint, signal?: AbortSignal): Promise<Tracer> {
    if (state.tracer !== failed) return state.tracer ?? "none";
    choosingAgain ??= retryForever(() => chooseTracer(client, { configured: "auto", probeBlock: block }), {
      what: "choosing a tracer",
      logger,
      signal,
    })
      .then((tracer) => {
        if (tracer === failed) return;
        state.tracer = tracer;
        logger.warn(
          { tracer, block: Number(block) },
          "the node does not run callTracer; tracer chosen again",
        );
      })
      .finally(() => {
        choosingAgain = null;
      });
    await choosingAgain;
    return state.tracer ?? "none";
  }

  /** The range's rows; token-transfer-shaped logs that fit no layout are skipped and reported. */
  async function rowsOf(transformed: TransformedRange, keptUpTo: bigint | undefined, signal?: AbortSignal) {
    const { from, to } = transformed;
    await attachTokensAt(transformed, keptUpTo, `tokens of blocks ${from}-${to}`, signal);
    if (transformed.malformedTokenTransfers > 0) {
      logger.warn(
        { from: Number(from), to: Number(to), skipped: transformed.malformedTokenTransfers },
        "skipped malformed token transfer logs",
      );
    }
    return transformed.rows;
  }

  /**
   * attachTokens until it succeeds. Its reads name the range's last block by hash, which fail for good once
   * the node has left that block (anvil forgets it; a load balancer's backend may never have had it): after
   * a failure, a block the node no longer has at that number ends the attempt as a divergence.
   * @throws {ChainDivergedError} when the node's block `to` is no longer `toHash`: fetch again.
   */
  async function attachTokensAt(
    range: Parameters<typeof attachTokens>[0]["range"],
    keptUpTo: bigint | undefined,
    what: string,
    signal?: AbortSignal,
  ) {
    const { to, toHash } = range;
    // Token rows are only pushed once every read succeeded, so a retry starts from clean rows.
    await retryForever(
      async (failures) => {
        if (failures > 0 && toHash !== undefined) {
          const [block] = await nodeBlocks([to]);
          // A head below the block is more often a lagging backend than a shorter chain: it gets a while.
          const left = block ? block.hash !== toHash : failures >= blockGoneAfterFailures;
          if (left)
            throw new ChainDivergedError(
              to,
              `the node's block ${to} is ${block?.hash ?? "gone"}, no longer ${toHash}`,
              `the node left block ${to} before its state was read`,
            );
        }
        return attachTokens({ client, db, range, keptUpTo });
      },
      { what, logger, signal },
    );
  }

  async function catchUp(target?: bigint, signal?: AbortSignal): Promise<bigint | null> {
    const head =
      target ??
      (await retryForever(() => eth_blockNumber(client), { what: "eth_blockNumber", logger, signal }));
    state.headBlock = head;
    const start = state.indexedBlock === null ? firstBlock : state.indexedBlock + 1n;
    if (start > head) return reachedHead(target, signal);

    const unfetched = rangesBetween(start, head, BigInt(rangeSize));
    const began = Date.now();
    let written = 0;
    let writtenTransactions = 0;
    let lastLog = began;
    // Fetches run up to `concurrency` ranges ahead; writes happen strictly in order.
    const inFlight: Promise<TransformedRange>[] = [];
    const launch = () => {
      while (inFlight.length < concurrency) {
        const next = unfetched.next();
        if (next.done) return;
        const [from, to] = next.value;
        const pending = fetchAndTransform(from, to, signal);
        pending.catch(() => {});
        inFlight.push(pending);
      }
    };
    launch();
    while (inFlight.length > 0) {
      const range = await (inFlight.shift() as Promise<TransformedRange>);
      launch();
      signal?.throwIfAborted();
      try {
        await writeRange(db, {
          from: range.from,
          to: range.to,
          parentHash: range.parentHash,
          rows: await rowsOf(range, undefined, signal),
        });
      } catch (error) {
        if (!(error instanceof ChainDivergedError)) throw error;
        // Ranges still in flight were fetched from the abandoned chain; the next catch-up refetches.
        if (state.indexedBlock === null) forgetFetchedState();
        else await reorganize(state.indexedBlock, signal);
        return state.indexedBlock;
      }
      state.indexedBlock = range.to;
      const transactions = range.rows.transactions.length;
      const blocks = range.rows.blocks.length;
      written += blocks;
      writtenTransactions += transactions;
      state.blocksWritten += blocks;
      state.transactionsWritten += transactions;
      logger.debug({ from: Number(range.from), to: Number(range.to) }, "range written");
      if (Date.now() - lastLog > 5_000) {
        lastLog = Date.now();
        const seconds = (lastLog - began) / 1000;
        const blocksPerSecond = written / seconds;
        logger.info(
          {
            indexed: Number(range.to),
            head: Number(head),
            blocksPerSecond: Math.round(blocksPerSecond),
            transactionsPerSecond: Math.round(writtenTransactions / seconds),
            etaSeconds: Math.round(Number(head - range.to) / blocksPerSecond),
          },
          "catching up",
        );
      }
    }
    return reachedHead(target, signal);
  }

  /**
   * Catching up to the node's head finishes ERC-4337's past RPC indexing, whether the head was asked for
   * or given as the target; a target below the head does not.
   */
  async function reachedHead(target: bigint | undefined, signal?: AbortSignal): Promise<bigint | null> {
    if (pastRpcRecorded) return state.indexedBlock;
    const indexed = state.indexedBlock;
    const reached =
      target === undefined ||
      (indexed !== null &&
        indexed >=
          (await retryForever(() => eth_blockNumber(client), { what: "eth_blockNumber", logger, signal })));
    if (reached) {
      await recordPastRpcIndexed(db);
      pastRpcRecorded = true;
    }
    return state.indexedBlock;
  }

  /**
   * Finds the highest stored block the node still has, searching at most `maxReorgDepth` below `tip`: its
   * number and the node's hash of it.
   */
  async function findCommonAncestor(tip: bigint, signal?: AbortSignal): Promise<StateBlock> {
    const floor = tip - BigInt(maxReorgDepth);
    const stored = await readBlockHashes(db, floor > 0n ? floor : 0n, tip);
    const step = 16n;
    for (let top = tip; top >= 0n && top >= floor; top -= step) {
      const numbers: bigint[] = [];
      for (let n = top; n > top - step && n >= 0n && n >= floor; n--) numbers.push(n);
      const blocks = await retryForever(() => nodeBlocks(numbers), {
        what: `blocks ${numbers.at(-1)}-${top} for a reorganization`,
        logger,
        signal,
      });
      for (const [i, n] of numbers.entries()) {
        const hash = stored.get(n);
        // Below the first indexed block there is nothing to compare: re-index from there.
        const block = blocks[i];
        if (hash === undefined || block?.hash === hash) return { number: n, hash: block?.hash };
      }
    }
    // A node that serves another chain now (its URL repointed, a backend behind a load balancer) diverges
    // from the stored chain at its genesis: that is said, not a reorganization.
    await ensureNodeChain(signal);
    throw new ReorgTooDeepError(
      `the node's chain diverges from the stored one more than ${maxReorgDepth} blocks below block ${tip}`,
      {
        details: "raise the reorganization depth or re-index from an empty database",
      },
    );
  }

  /**
   * Replaces the stored blocks above the common ancestor with the node's canonical ones (or drops them
   * when the node's chain is now shorter), in one transaction. A node that moves to yet another chain
   * while this one is followed (a fork that flaps, backends behind a load balancer) leaves the fetched
   * blocks without the stored ancestor as their parent: the ancestor is then searched for again.
   */
  async function reorganize(tip: bigint, signal?: AbortSignal) {
    for (;;) {
      try {
        return await replaceAboveAncestor(tip, signal);
      } catch (error) {
        if (!(error instanceof ChainDivergedError)) throw error;
        logger.warn({ err: error }, "the node's chain moved during a reorganization; searching again");
        signal?.throwIfAborted();
      }
    }
  }

  /** What ranges of an abandoned chain showed is no longer known (an address's code, a token's description). */
  function forgetFetchedState() {
    knownContracts = new Set();
    describedTokens = new Set();
  }

  async function replaceAboveAncestor(tip: bigint, signal?: AbortSignal) {
    forgetFetchedState();
    const head = await retryForever(() => eth_blockNumber(client), {
      what: "eth_blockNumber",
      logger,
      signal,
    });
    const { number: ancestor, hash: ancestorHash } = await findCommonAncestor(tip, signal);
    const wanted = tip > ancestor + BigInt(rangeSize) ? tip : ancestor + BigInt(rangeSize);
    const end = head < wanted ? head : wanted;
    if (end <= ancestor) {
      // Nothing replaces the orphaned blocks: supplies read in them are read again at the ancestor, which
      // is the node's head.
      const supplies = createRangeRows();
      const range = {
        rows: supplies,
        to: ancestor,
        toHash: ancestorHash,
        tokenCandidates: new Map(),
        tokenReadings: new Map(),
      };
      await attachTokensAt(range, ancestor, `supplies at block ${ancestor}`, signal);
      await rollBackTo(db, ancestor, supplies);
    } else {
      const range = await fetchAndTransform(ancestor + 1n, end, signal);
      await writeRange(db, {
        from: range.from,
        to: range.to,
        parentHash: range.parentHash,
        rows: await rowsOf(range, ancestor, signal),
        replaceAbove: ancestor,
      });
    }
    logger.warn(
      {
        depth: Number(tip - ancestor),
        ancestor: Number(ancestor),
        indexed: Number(end > ancestor ? end : ancestor),
      },
      "followed a chain reorganization",
    );
    state.indexedBlock = end > ancestor ? end : ancestor;
  }

  /** A reorganization that replaced the stored tip, or shortened the chain, shows at the tip itself. */
  async function reconcileTip(signal: AbortSignal) {
    const tip = state.indexedBlock;
    if (tip === null) return;
    const [block] = await retryForever(() => nodeBlocks([tip]), {
      what: `block ${tip}`,
      logger,
      signal,
    });
    if (block === null && ++pollsWithTipAboveHead < blockGoneAfterFailures) return;
    pollsWithTipAboveHead = 0;
    const stored = await readBlockHashes(db, tip, tip);
    if (block?.hash !== stored.get(tip)) await reorganize(tip, signal);
  }

  /**
   * Block headers (no transactions) for `numbers`, null for those above the node's head. The head is read
   * after the blocks, in the same attempt: a block missing at or below it is a passing fault and is
   * retried, while one above it is gone, even when the node still answers for it (anvil after
   * `anvil_rollback` serves the dropped blocks by number for a while). A head read before, and kept over
   * retries, would call a chain that got shorter in between a fault forever.
   */
  async function nodeBlocks(numbers: bigint[]) {
    const blocks = await eth_getBlockByNumber(client, { blocks: numbers, includeTransactions: false });
    const head = await eth_blockNumber(client);
    return numbers.map((n, i) => {
      if (n > head) return null;
      const block = blocks[i];
      if (!block?.hash) throw new RpcInvalidAnswerError(`node has no block ${n} below its head ${head}`);
      return block;
    });
  }

  /**
   * One round of following: reconcile the tip, catch up, record the heartbeat, and rest when nothing new
   * came. After a failure the checkpoint is read again: a write cut off by it may or may not have committed.
   */
  async function follow(resuming: boolean, signal: AbortSignal) {
    if (resuming) state.indexedBlock = await readCheckpoint(db);
    if (!abandonedRebuildsDropped) {
      const abandoned = await dropAbandonedRebuilds(db);
      if (abandoned.length > 0)
        logger.info({ abandoned }, "dropped index rebuilds a cut-off compaction left");
      abandonedRebuildsDropped = true;
    }
    const before = state.indexedBlock;
    await reconcileTip(signal);
    await catchUp(undefined, signal);
    // Falling behind (a burst of blocks, a slow node) is catching up again, not following.
    // A head below the stored tip (a lagging backend, see reconcileTip) leaves nothing to catch up either.
    const atHead =
      state.indexedBlock === state.headBlock ||
      (state.indexedBlock !== null && state.headBlock !== null && state.indexedBlock > state.headBlock);
    const wasFollowing = state.following;
    if (!wasFollowing && atHead)
      logger.info({ indexed: Number(state.indexedBlock) }, "caught up; following new blocks");
    state.following = atHead;
    if (state.following) await recordHeartbeat(db, liveTtlMs);
    // After the heartbeat: right after a database outage the check's queries took the connections already
    // back, and the heartbeat waited out the driver's reconnection backoff on another (seconds).
    const indexed = state.indexedBlock;
    if (atHead && indexed !== null && (!wasFollowing || indexed >= (compactionCheckAt ?? indexed + 1n))) {
      compactionCheckAt = 2n * indexed + 1n;
      compactIfWorthIt(signal);
    }
    if (state.indexedBlock === before) await sleep(pollIntervalMs, signal);
  }

  /**
   * Starts compacting the indexes in the background when `compactIndexesIfWorthIt` finds it worth it;
   * following goes on meanwhile. A compaction that fails leaves the indexes as they were, and one cut off
   * by a stop is cleaned up at the next run, one cut off by a lost connection at the next round (the
   * compaction itself waits for the next run, or for the chain's height to double).
   */
  function compactIfWorthIt(signal: AbortSignal) {
    if (compaction) return;
    compaction = compactIndexesIfWorthIt(db, { minTransactions: compactIndexesAfter, logger, signal })
      .then((compacted) => {
        if (compacted === null) return;
        state.indexCompactions += 1;
        logger.info({ ...compacted }, "indexes compacted");
      })
      .catch((error) => {
        if (signal.aborted) return;
        logger.warn({ err: error }, "index compaction failed; the indexes stay as they were");
        // The copy a cut-off rebuild leaves is written with every row until it is dropped.
        abandonedRebuildsDropped = false;
      })
      .finally(() => {
        compaction = null;
      });
  }

  async function run(signal: AbortSignal) {
    try {
      for (;;) {
        // A database outage surfaces here (writes are not retried in place) and is waited out.
        await retryForever((failures) => follow(failures > 0, signal), {
          what: "indexing",
          logger,
          signal,
          maxDelayMs: 5_000,
        });
      }
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
  }

  return { prepare, catchUp, run, status: () => ({ ...state }) };
}

/** Blocks `start..head` in ranges of `size` blocks, the last one cut at `head`. */
function* rangesBetween(start: bigint, head: bigint, size: bigint): Generator<[bigint, bigint], void> {
  for (let from = start; from <= head; from += size) {
    const to = from + size - 1n;
    yield [from, to < head ? to : head];
  }
}
