import { defineEndpoint } from "../define-endpoint.ts";
import {
  type WithdrawalsQuery,
  withdrawalsComponents,
  withdrawalsPage,
  withdrawalsQuerystring,
} from "../lists/withdrawals.ts";
import { addressHashParams, lowerHex } from "../params.ts";
import { emptyForUnknown, listResponses } from "../schemas/lists.ts";

/** Endpoint 5: the withdrawals an address received, highest index first. */
export const addressWithdrawals = defineEndpoint<{
  Params: { address_hash_param: string };
  Querystring: WithdrawalsQuery;
}>({
  number: 5,
  method: "GET",
  path: "/api/v2/addresses/:address_hash_param/withdrawals",
  schema: {
    operationId: "addressWithdrawals",
    summary: "Withdrawals received by an address",
    description: `Withdrawals credited to the address, highest index first. ${emptyForUnknown}`,
    tags: ["addresses"],
    params: addressHashParams(),
    querystring: withdrawalsQuerystring,
    response: listResponses("WithdrawalsPage", "A page of withdrawals."),
  },
  components: withdrawalsComponents,
  handler: async ({ db }, request) =>
    withdrawalsPage(db, { address: lowerHex(request.params.address_hash_param) }, request.query),
});
