import type { FastifyInstance } from "fastify";
import { findAddresses } from "../../db/queries/addresses.ts";
import { findTokens, listAddressTokens } from "../../db/queries/token-balances.ts";
import { ApiError } from "../errors.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  commonListQuery,
  cursorValue,
  lowerHex,
  tokenTypeList,
  tokenTypeListPattern,
  valueCursor,
} from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { ExactNumber, pageJson, renderToken, renderTokenInstance } from "../views/token.ts";

/** Token types the `type` filter of the address lists knows (Blockscout's, ERC-7984 included). */
export const tokenTypes = ["ERC-20", "ERC-721", "ERC-1155", "ERC-404", "ERC-7984"] as const;

/** Blockscout's 422 for a `type` list that matches neither of its two forms (empty, or the list pattern). */
export function invalidTokenType(): ApiError {
  const entry = (detail: string) => ({ title: "Invalid value", source: { pointer: "/type" }, detail });
  return new ApiError(422, {
    errors: [
      entry(
        'Failed to cast value using any of: Schema(title: "EmptyString", type: :string), Schema(type: :string)',
      ),
      entry("String length is larger than maxLength: 0"),
      entry(`Invalid format. Expected ~r/${tokenTypeListPattern}/i`),
    ],
  });
}

/** The cursor `id`: the token address and id (-1 for none) of the last row, which order equal values. */
const idPattern = "^(0x[A-Fa-f0-9]{40}:-?[0-9]{1,78}|[0-9]+|null|)$";

type Query = { type?: string; value?: string; id?: string };

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: {
    type: { type: "string" },
    value: valueCursor,
    id: { type: "string", pattern: idPattern },
    fiat_value: { type: "string" },
    token_name: { type: "string" },
    token_type: { type: "string" },
    ...commonListQuery,
  },
} as const;

/**
 * Endpoint 1: the tokens an address holds (balances above zero), largest value first. ERC-721 holdings
 * are one row per token (value = ids held); ERC-1155 and ERC-404 ids one row each, with their instance.
 */
export function addressTokensRoute(app: FastifyInstance, { db }: ApiContext) {
  app.get<{ Params: { address_hash_param: string }; Querystring: Query }>(
    "/api/v2/addresses/:address_hash_param/tokens",
    { schema: { ...endpointDocs.addressTokens, params: addressHashParams, querystring } },
    async (request, reply) => {
      const address = lowerHex(request.params.address_hash_param);
      const query = request.query;
      const types = tokenTypeList(query.type, tokenTypes);
      if (types === null) throw invalidTokenType();
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
  );
}
