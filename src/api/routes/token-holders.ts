import type { FastifyInstance } from "fastify";
import { findAddresses } from "../../db/queries/addresses.ts";
import {
  findTokenType,
  type ListTokenHoldersParameters,
  listTokenHolders,
} from "../../db/queries/token-balances.ts";
import { notFound } from "../errors.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressCursor,
  addressHashParams,
  commonListQuery,
  cursorDecimal,
  cursorValue,
  lowerHex,
  tokenInstanceParams,
  uint256Cursor,
  valueCursor,
} from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { renderAddress } from "../views/address.ts";
import { ExactNumber, pageJson } from "../views/token.ts";

type Query = { value?: string; address_hash?: string; token_id?: string };

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: {
    value: valueCursor,
    address_hash: addressCursor,
    token_id: uint256Cursor,
    ...commonListQuery,
  },
} as const;

/** Largest uint256 has 78 digits; anything longer is held by no one. */
const maxDigits = 78;

async function holdersPage(
  { db }: ApiContext,
  { token, type, tokenId, query }: Omit<ListTokenHoldersParameters, "cursor" | "limit"> & { query: Query },
) {
  const value = cursorValue(query.value);
  const cursorId = cursorDecimal(query.token_id);
  const outOfRange = [tokenId, value?.split(".")[0], cursorId].some(
    (digits) => digits && digits.length > maxDigits,
  );
  const rows = outOfRange
    ? []
    : await listTokenHolders(db, {
        token,
        type,
        tokenId,
        cursor: {
          value,
          holder: cursorDecimal(query.address_hash) === null ? null : lowerHex(query.address_hash as string),
          token_id: cursorId,
        },
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

/**
 * Endpoints 6 and 9: the holders of a token, and of one id of an NFT token, largest balance first, then
 * holder address descending. 404 for an unknown token, and for an ERC-20 token's instance.
 */
export function tokenHoldersRoutes(app: FastifyInstance, context: ApiContext) {
  app.get<{ Params: { address_hash_param: string }; Querystring: Query }>(
    "/api/v2/tokens/:address_hash_param/holders",
    { schema: { ...endpointDocs.tokenHolders, params: addressHashParams, querystring } },
    async (request, reply) => {
      const token = lowerHex(request.params.address_hash_param);
      const type = await findTokenType(context.db, token);
      if (type === null) throw notFound();
      const page = await holdersPage(context, { token, type, query: request.query });
      return reply.type("application/json; charset=utf-8").send(pageJson(page));
    },
  );
  app.get<{ Params: { address_hash_param: string; token_id_param: string }; Querystring: Query }>(
    "/api/v2/tokens/:address_hash_param/instances/:token_id_param/holders",
    { schema: { ...endpointDocs.tokenInstanceHolders, params: tokenInstanceParams, querystring } },
    async (request, reply) => {
      const token = lowerHex(request.params.address_hash_param);
      const type = await findTokenType(context.db, token);
      if (type === null || type === "ERC-20") throw notFound();
      const id = request.params.token_id_param;
      // Negative ids name no NFT (-1 is where fungible balances are kept).
      const page = id.startsWith("-")
        ? { items: [], next_page_params: null }
        : await holdersPage(context, { token, type, tokenId: id, query: request.query });
      return reply.type("application/json; charset=utf-8").send(pageJson(page));
    },
  );
}
