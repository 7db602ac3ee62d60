import type { FastifyInstance } from "fastify";
import { findAddresses } from "../../db/queries/addresses.ts";
import { findBlockNumber } from "../../db/queries/blocks.ts";
import { type ListWithdrawalsParameters, listWithdrawals } from "../../db/queries/withdrawals.ts";
import { notFound } from "../errors.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  bigintCursor,
  blockHashOrNumberParams,
  commonListQuery,
  cursorInteger,
  lowerHex,
} from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { renderWithdrawal } from "../views/withdrawal.ts";

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: { index: bigintCursor, ...commonListQuery },
} as const;

type Query = { index?: string };

async function withdrawalsPage({ db }: ApiContext, where: ListWithdrawalsParameters["where"], query: Query) {
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

/** Endpoints 4 and 5: the withdrawals of a block and those received by an address, highest index first. */
export function withdrawalsRoutes(app: FastifyInstance, context: ApiContext) {
  app.get<{ Params: { block_hash_or_number_param: string }; Querystring: Query }>(
    "/api/v2/blocks/:block_hash_or_number_param/withdrawals",
    { schema: { ...endpointDocs.blockWithdrawals, params: blockHashOrNumberParams, querystring } },
    async (request) => {
      const param = request.params.block_hash_or_number_param;
      const blockNumber = await findBlockNumber(
        context.db,
        param.startsWith("0x") ? lowerHex(param) : BigInt(param),
      );
      if (blockNumber === null) throw notFound();
      return withdrawalsPage(context, { blockNumber }, request.query);
    },
  );
  app.get<{ Params: { address_hash_param: string }; Querystring: Query }>(
    "/api/v2/addresses/:address_hash_param/withdrawals",
    { schema: { ...endpointDocs.addressWithdrawals, params: addressHashParams, querystring } },
    async (request) =>
      withdrawalsPage(context, { address: lowerHex(request.params.address_hash_param) }, request.query),
  );
}
