import { findBlockNumber } from "../../db/queries/blocks.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { notFound } from "../errors.ts";
import {
  type WithdrawalsQuery,
  withdrawalsComponents,
  withdrawalsPage,
  withdrawalsQuerystring,
} from "../lists/withdrawals.ts";
import { documented, hashPattern, lowerHex } from "../params.ts";
import { listResponses } from "../schemas/lists.ts";

/** Endpoint 4: the withdrawals of a block, highest index first; 404 for a block not indexed. */
export const blockWithdrawals = defineEndpoint<{
  Params: { block_hash_or_number_param: string };
  Querystring: WithdrawalsQuery;
}>({
  number: 4,
  method: "GET",
  path: "/api/v2/blocks/:block_hash_or_number_param/withdrawals",
  schema: {
    operationId: "blockWithdrawals",
    summary: "Withdrawals of a block",
    description: "The beacon-chain withdrawals a block carried, highest index first.",
    tags: ["blocks"],
    params: {
      type: "object",
      required: ["block_hash_or_number_param"],
      properties: {
        // Blockscout's `block_hash_or_number_param`.
        block_hash_or_number_param: documented(
          { type: "string", anyOf: [{ pattern: hashPattern }, { pattern: "^[0-9]+$" }] },
          { description: "Block number, or block hash (`0x` and 64 hex digits).", example: "1" },
        ),
      },
    },
    querystring: withdrawalsQuerystring,
    response: listResponses(
      "WithdrawalsPage",
      "A page of withdrawals.",
      "The block is not indexed (number above the indexed head, or unknown hash).",
    ),
  },
  components: withdrawalsComponents,
  handler: async ({ db }, request) => {
    const param = request.params.block_hash_or_number_param;
    const blockNumber = await findBlockNumber(db, param.startsWith("0x") ? lowerHex(param) : BigInt(param));
    if (blockNumber === null) throw notFound();
    return withdrawalsPage(db, { blockNumber }, request.query);
  },
});
