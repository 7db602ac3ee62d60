import type { Queryable } from "./client.ts";

/** Name of the checkpoint that records the last block whose core data is stored. */
export const blocksCheckpoint = "blocks";

/** The block a checkpoint records (by default the last block whose data is stored), or null when none. */
export async function readCheckpoint(db: Queryable, name = blocksCheckpoint): Promise<bigint | null> {
  const [row] = await db.query<{ block_number: number }>(
    "SELECT block_number FROM checkpoints WHERE name = $1",
    [name],
  );
  return row ? BigInt(row.block_number) : null;
}
