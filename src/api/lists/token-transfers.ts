import type { Queryable } from "../../db/client.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import type { TokenTransferRow, TokenTransfersCursor } from "../../db/queries/token-transfers.ts";
import { toPage } from "../paging.ts";
import { blockNumberCursor, commonListQuery, cursorInteger, hashCursor, indexCursor } from "../params.ts";
import { fullHash, integer, type JsonSchema, object } from "../schemas/common.ts";
import { itemsCount, listPage } from "../schemas/lists.ts";
import { renderTokenTransfer, tokenTransferAddresses } from "../views/token-transfer.ts";

/** The cursor keys of both token-transfer lists (of the chain, of an address). */
export type TokenTransfersCursorQuery = { block_number?: string; index?: string; index_in_batch?: string };

/** The cursor keys both token-transfer lists accept, with the parameters every list accepts. */
export const tokenTransfersCursorQuery = {
  block_number: blockNumberCursor,
  index: indexCursor("log index of the last transfer"),
  index_in_batch: indexCursor("ids of the last ERC-1155 batch already listed"),
  // Blockscout's other batch keys, accepted back: the block and log already say where the batch is.
  batch_log_index: indexCursor("log index of that batch (accepted back, not needed)"),
  batch_block_hash: hashCursor("block of that batch (accepted back, not needed)"),
  batch_transaction_hash: hashCursor("transaction of that batch (accepted back, not needed)"),
  ...commonListQuery,
};

/** The page both token-transfer lists answer, and its cursor, by component name. */
export const tokenTransfersComponents: Record<string, JsonSchema> = {
  TokenTransfersNextPageParams: {
    ...object({
      block_number: integer("Block number of the last transfer.", 358),
      index: integer("Log index of the last transfer.", 0),
      batch_log_index: integer("Log index of the ERC-1155 batch the page ended in.", 0),
      batch_block_hash: fullHash(
        "Block of that batch.",
        "0xe8abad55e8869fc178ad1e6908c395fd7a2a694a68744570a29ccd10dea88e94",
      ),
      batch_transaction_hash: fullHash(
        "Transaction of that batch.",
        "0xab166d01c7f151aece88d908d4128b9614d6b90cc79eec0659513a2dd8fcf615",
      ),
      index_in_batch: integer("Ids of that batch already listed.", 4),
      items_count: itemsCount,
    }),
    required: ["block_number", "index", "items_count"],
    description: "The batch keys are sent only when the page ends inside an ERC-1155 batch with ids left.",
  },
  TokenTransfersPage: listPage("TokenTransfer", "TokenTransfersNextPageParams", "Token transfers."),
};

/** The cursor a token-transfer list's query names. */
export function tokenTransfersCursor(query: TokenTransfersCursorQuery): TokenTransfersCursor {
  const indexInBatch = cursorInteger(query.index_in_batch);
  return {
    block_number: cursorInteger(query.block_number),
    index: cursorInteger(query.index),
    // The transfer the cursor names was listed: at least its first id was.
    index_in_batch: indexInBatch === null ? null : Math.max(indexInBatch, 1),
  };
}

/**
 * The page of up to `pageSize + 1` transfer rows; inside a batch, the cursor resumes at its next id.
 * `ipfsPublicGateway` is the gateway of the instances' `ipfs://` media links.
 */
export async function tokenTransfersPage(db: Queryable, rows: TokenTransferRow[], ipfsPublicGateway: string) {
  // With the ABIs of the transactions' `to`, which name a transfer's `method`.
  const addresses = await findAddresses(db, rows.flatMap(tokenTransferAddresses), {
    withAbis: rows.flatMap((row) => row.transaction_to ?? []),
  });
  return toPage(
    rows,
    (row) => renderTokenTransfer(row, addresses, ipfsPublicGateway),
    (last, following) => ({
      block_number: last.block_number,
      index: last.log_index,
      // Inside a batch with ids left, the next page resumes at the batch's next id. Each transfer is spread
      // to as many ids as the page reads rows, so the row read past the page is that id when there is one:
      // the batch's size is not read, which costs a read of its whole arrays (a batch of 20,000 ids took
      // 0.15 ms for each of the 51 rows spread out of it).
      ...(following.block_number === last.block_number && following.log_index === last.log_index
        ? {
            batch_log_index: last.log_index,
            batch_block_hash: last.block_hash,
            batch_transaction_hash: last.transaction_hash,
            index_in_batch: last.position,
          }
        : {}),
    }),
  );
}
