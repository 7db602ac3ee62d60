import type { Queryable } from "../../db/client.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import { type ListWithdrawalsParameters, listWithdrawals } from "../../db/queries/withdrawals.ts";
import { pageSize, toPage } from "../paging.ts";
import { bigintCursor, commonListQuery, cursorInteger } from "../params.ts";
import { integer, type JsonSchema, object } from "../schemas/common.ts";
import { itemsCount, listPage } from "../schemas/lists.ts";
import { renderWithdrawal } from "../views/withdrawal.ts";

/** The query of both withdrawal lists (of a block, of an address): the cursor alone. */
export type WithdrawalsQuery = { index?: string };

export const withdrawalsQuerystring = {
  type: "object",
  additionalProperties: false,
  properties: { index: bigintCursor("index of the last item"), ...commonListQuery },
};

/** The page both withdrawal lists answer, and its cursor, by component name. */
export const withdrawalsComponents: Record<string, JsonSchema> = {
  WithdrawalsNextPageParams: object({
    index: integer("Index of the last withdrawal.", 15),
    items_count: itemsCount,
  }),
  WithdrawalsPage: listPage("Withdrawal", "WithdrawalsNextPageParams", "Withdrawals."),
};

/** One page of the withdrawals `where` names, highest index first, after the cursor of `query`. */
export async function withdrawalsPage(
  db: Queryable,
  where: ListWithdrawalsParameters["where"],
  query: WithdrawalsQuery,
) {
  const rows = await listWithdrawals(db, {
    where,
    cursor: { index: cursorInteger(query.index) },
    limit: pageSize + 1,
  });
  const addresses = await findAddresses(
    db,
    rows.map((row) => row.address),
  );
  return toPage(
    rows,
    (row) => renderWithdrawal(row, addresses),
    (last) => ({ index: last.index }),
  );
}
