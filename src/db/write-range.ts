import { BaseError } from "../errors.ts";
import { blocksCheckpoint } from "./checkpoints.ts";
import { type Database, writeTransaction } from "./client.ts";
import { byteaParam } from "./table-rows.ts";
import { deleteAbove, insertRange, type RangeRows } from "./tables.ts";
import { storeTokensAndTypes } from "./token-types.ts";

/**
 * The stored chain and the node's no longer meet at `blockNumber`: a range's parent is not the block stored
 * below it, or the node left a fetched block before its state was read.
 */
export class ChainDivergedError extends BaseError {
  override name = "ChainDivergedError";
  readonly blockNumber: bigint;

  constructor(
    blockNumber: bigint,
    details: string,
    shortMessage = `block ${blockNumber} does not extend the stored chain`,
  ) {
    super(shortMessage, { details });
    this.blockNumber = blockNumber;
  }
}

export type WriteRangeParameters = {
  from: bigint;
  to: bigint;
  /** Parent hash of block `from`, checked against the stored block `from - 1`. */
  parentHash: string;
  rows: RangeRows;
  /** Replace what is stored above this block (a reorganization): deleted and rewritten in the same transaction. */
  replaceAbove?: bigint;
};

/**
 * Writes a range's rows and moves the checkpoint to its last block, in one transaction: a crash at
 * any point leaves either the whole range or none of it. Refuses a range that does not start right
 * after the checkpoint or whose parent is not the stored block below it.
 */
export async function writeRange(
  db: Database,
  { from, to, parentHash, rows, replaceAbove }: WriteRangeParameters,
): Promise<void> {
  await writeTransaction(db, async (tx) => {
    // An update rather than SELECT … FOR UPDATE: its trigger takes the data version's lock before this
    // row's, the order every writer keeps.
    const [checkpoint] = await tx.query<{ block_number: number }>(
      "UPDATE checkpoints SET block_number = block_number WHERE name = $1 RETURNING block_number",
      [blocksCheckpoint],
    );
    if (replaceAbove !== undefined) await deleteAbove(tx, replaceAbove);
    const stored = replaceAbove ?? (checkpoint ? BigInt(checkpoint.block_number) : null);
    if (stored !== null && stored + 1n !== from) {
      throw new ChainDivergedError(from, `the stored chain ends at block ${stored}`);
    }
    const [parent] = await tx.query<{ matches: boolean }>(
      "SELECT hash = $2::bytea AS matches FROM blocks WHERE number = $1",
      [Number(from - 1n), byteaParam(parentHash)],
    );
    if (parent && !parent.matches) {
      throw new ChainDivergedError(
        from,
        `its parent hash ${parentHash} differs from the stored block ${from - 1n}`,
      );
    }
    await insertRange(tx, rows, { from, to });
    await tx.query(
      `INSERT INTO checkpoints (name, block_number) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET block_number = excluded.block_number`,
      [blocksCheckpoint, Number(to)],
    );
  });
}

/**
 * Deletes everything above `blockNumber` and moves the checkpoint there, in one transaction: the node's
 * chain became shorter than the stored one. The deletion leaves a supply read above `blockNumber` unknown:
 * `supplies` holds the token rows that read them again at `blockNumber` (the indexer's attachTokens on no
 * blocks), stored in the same transaction.
 */
export async function rollBackTo(db: Database, blockNumber: bigint, supplies: RangeRows): Promise<void> {
  await writeTransaction(db, async (tx) => {
    await deleteAbove(tx, blockNumber);
    await storeTokensAndTypes(tx, supplies);
    await tx.query("UPDATE checkpoints SET block_number = $2 WHERE name = $1", [
      blocksCheckpoint,
      blockNumber.toString(),
    ]);
  });
}

/** Stored block hashes from `from` to `to`, keyed by block number. */
export async function readBlockHashes(db: Database, from: bigint, to: bigint): Promise<Map<bigint, string>> {
  const rows = await db.query<{ number: number; hash: string }>(
    "SELECT number, '0x' || encode(hash, 'hex') AS hash FROM blocks WHERE number BETWEEN $1 AND $2",
    [from.toString(), to.toString()],
  );
  return new Map(rows.map((row) => [BigInt(row.number), row.hash]));
}
