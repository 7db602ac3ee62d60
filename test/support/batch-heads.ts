import type { Queryable } from "../../src/db/client.ts";
import { batchHeadItems } from "../../src/db/tables.ts";

/**
 * Gives every stored batch of more than `batchHeadItems` ids its head, as the indexer writes it with the
 * transfer (and migration 043 for those stored before): for tests that write token transfers directly.
 */
export async function writeBatchHeads(db: Queryable): Promise<void> {
  await db.query(
    `INSERT INTO token_transfer_heads (block_number, log_index, token_ids, amounts)
     SELECT block_number, log_index, token_ids[1:$1::int], amounts[1:$1::int] FROM token_transfers
     WHERE item_count > $1::int`,
    [batchHeadItems],
  );
}
