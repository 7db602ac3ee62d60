import type { Queryable } from "../../db/client.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import { type ListTokenHoldersParameters, listTokenHolders } from "../../db/queries/token-balances.ts";
import { pageSize, toPage } from "../paging.ts";
import { balanceDigits, cursorDecimal, cursorHex, cursorValue } from "../params.ts";
import { renderAddress } from "../views/address.ts";
import { ExactNumber } from "../views/token.ts";

/** The cursor keys of both holder lists (of a token, of one of its ids). */
export type TokenHoldersQuery = { value?: string; address_hash?: string; token_id?: string };

/** The largest uint256 has 78 digits: no id is longer. */
const idDigits = 78;

/**
 * One page of the holders of `token` (of its id `tokenId` when given), largest balance first, then
 * holder address descending, after the cursor of `query`.
 */
export async function tokenHoldersPage(
  db: Queryable,
  {
    token,
    type,
    tokenId,
    query,
  }: Omit<ListTokenHoldersParameters, "cursor" | "limit"> & { query: TokenHoldersQuery },
) {
  const value = cursorValue(query.value);
  const cursorId = cursorDecimal(query.token_id);
  // No id is longer: no row has it.
  const noSuchId = [tokenId, cursorId].some((digits) => digits && digits.length > idDigits);
  // A value longer than any balance is above them all: every holder follows it, as on the first page.
  const aboveAll = (value?.split(".")[0]?.length ?? 0) > balanceDigits;
  const rows = noSuchId
    ? []
    : await listTokenHolders(db, {
        token,
        type,
        tokenId,
        cursor: aboveAll
          ? { value: null, holder: null, token_id: null }
          : { value, holder: cursorHex(query.address_hash), token_id: cursorId },
        limit: pageSize + 1,
      });
  const addresses = await findAddresses(
    db,
    rows.slice(0, pageSize).map((row) => row.holder),
  );
  return toPage(
    rows,
    (row) => {
      const address = renderAddress(row.holder, addresses);
      return { address, address_hash: address, value: row.value, token_id: row.token_id };
    },
    (last) => ({
      address_hash: last.holder,
      value: new ExactNumber(last.value),
      ...(last.token_id === null ? {} : { token_id: last.token_id }),
    }),
  );
}
