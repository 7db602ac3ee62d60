import { findAddresses } from "../../db/queries/addresses.ts";
import { findTokens, listAddressTokens } from "../../db/queries/token-balances.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  commonListQuery,
  cursorValue,
  documented,
  lowerHex,
  valueCursor,
} from "../params.ts";
import { demo, integer, object, orNull, string } from "../schemas/common.ts";
import { emptyForUnknown, itemsCount, listPage, listResponses } from "../schemas/lists.ts";
import { readTokenTypes, tokenTypes, tokenTypesParameter } from "../token-types.ts";
import { ExactNumber, pageJson, renderToken, renderTokenInstance } from "../views/token.ts";

/** The cursor `id`: the token address and id (-1 for none) of the last row, which order equal values. */
const idPattern = "^(0x[A-Fa-f0-9]{40}:-?[0-9]{1,78}|[0-9]+|null|)$";

type Query = { type?: string; value?: string; id?: string };

/**
 * Endpoint 1: the tokens an address holds (balances above zero), largest value first. ERC-721 holdings
 * are one row per token (value = ids held); ERC-1155 and ERC-404 ids one row each, with their instance.
 */
export const addressTokens = defineEndpoint<{ Params: { address_hash_param: string }; Querystring: Query }>({
  number: 1,
  method: "GET",
  path: "/api/v2/addresses/:address_hash_param/tokens",
  schema: {
    operationId: "addressTokens",
    summary: "Token balances of an address",
    description: `Current balances above zero, largest value first. ERC-721 holdings are one row per token (value = ids held); ERC-1155 and ERC-404 ids one row each, with their instance. ${emptyForUnknown}`,
    tags: ["addresses"],
    params: addressHashParams(),
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        type: tokenTypesParameter(tokenTypes),
        value: valueCursor("value of the last row"),
        id: documented(
          { type: "string", pattern: idPattern },
          {
            description:
              "Cursor key from `next_page_params`: token address and id of the last row (`0x…:-1`).",
          },
        ),
        fiat_value: documented(
          { type: "string" },
          { description: "Cursor key from `next_page_params` (always null); accepted and ignored." },
        ),
        token_name: documented(
          { type: "string" },
          { description: "Cursor key from `next_page_params`; accepted and ignored." },
        ),
        token_type: documented(
          { type: "string" },
          { description: "Cursor key from `next_page_params`; accepted and ignored." },
        ),
        ...commonListQuery,
      },
    },
    response: listResponses("AddressTokensPage", "A page of token balances."),
  },
  components: {
    AddressTokensNextPageParams: object({
      fiat_value: { type: "null", description: "Fiat value of the last row (no price feed: null)." },
      id: string(
        "Token address and id (`-1` for a token-level balance) of the last row.",
        `${demo.erc20.toLowerCase()}:-1`,
        {
          pattern: "^0x[0-9a-f]{40}:-?[0-9]+$",
        },
      ),
      token_name: orNull(string("Token name of the last row.", "Sextant Demo Token")),
      token_type: string("Token type of the last row.", "ERC-20"),
      value: integer("Value of the last row, exact digits (may exceed 2^64).", 5000000000000000000),
      items_count: itemsCount,
    }),
    AddressTokensPage: listPage(
      "AddressTokenBalance",
      "AddressTokensNextPageParams",
      "Token balances of an address.",
    ),
  },
  handler: async ({ db, ipfsPublicGateway }, request, reply) => {
    const address = lowerHex(request.params.address_hash_param);
    const query = request.query;
    const types = readTokenTypes(query.type, tokenTypes);
    // A Blockscout-style numeric id carries no position here: resume by value alone.
    const [idToken, idValue] = query.id?.includes(":") ? query.id.split(":") : [null, null];
    const rows = await listAddressTokens(db, {
      address,
      types,
      cursor: {
        value: cursorValue(query.value),
        token_address: idToken === null ? null : lowerHex(idToken),
        token_id: idValue,
      },
      limit: pageSize + 1,
    });
    const shown = rows.slice(0, pageSize);
    const [tokens, addresses] = await Promise.all([
      findTokens(
        db,
        shown.map((row) => row.token_address),
      ),
      findAddresses(db, shown.some((row) => row.is_unique) ? [address] : []),
    ]);
    const page = toPage(
      rows,
      (row) => {
        const token = tokens.get(row.token_address);
        const tokenId = row.token_id === "-1" ? null : row.token_id;
        return {
          token: renderToken(token, { holdersCountAsInteger: true }),
          token_id: tokenId,
          token_instance:
            tokenId === null
              ? null
              : renderTokenInstance({
                  id: tokenId,
                  instance: row,
                  holder: address,
                  token: renderToken(token),
                  addresses,
                  ipfsPublicGateway,
                }),
          value: row.value,
        };
      },
      (last) => ({
        fiat_value: null,
        id: `${last.token_address}:${last.token_id}`,
        token_name: tokens.get(last.token_address)?.name ?? null,
        token_type: last.type,
        value: new ExactNumber(last.value),
      }),
    );
    return reply.type("application/json; charset=utf-8").send(pageJson(page));
  },
});
