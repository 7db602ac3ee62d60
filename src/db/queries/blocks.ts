import type { Queryable } from "../client.ts";
import { byteaParam, int8Max } from "../table-rows.ts";

/** The number of an indexed block given by number or hash, or null when no such block is indexed. */
export async function findBlockNumber(db: Queryable, numberOrHash: bigint | string): Promise<number | null> {
  if (typeof numberOrHash === "bigint") {
    // Larger than any bigint column can hold: certainly not indexed.
    if (numberOrHash > int8Max) return null;
    const [row] = await db.query<{ number: number }>("SELECT number FROM blocks WHERE number = $1", [
      numberOrHash.toString(),
    ]);
    return row?.number ?? null;
  }
  const [row] = await db.query<{ number: number }>("SELECT number FROM blocks WHERE hash = $1", [
    byteaParam(numberOrHash),
  ]);
  return row?.number ?? null;
}
