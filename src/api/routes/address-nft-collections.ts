import type { FastifyInstance } from "fastify";
import { findAddresses } from "../../db/queries/addresses.ts";
import { findTokens, listNftCollections, type NftCollectionRow } from "../../db/queries/token-balances.ts";
import { pageSize, toPage } from "../paging.ts";
import { addressCursor, addressHashParams, commonListQuery, lowerHex, tokenTypeList } from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { renderToken, renderTokenInstance } from "../views/token.ts";
import { invalidTokenType } from "./address-tokens.ts";

const nftTypes = ["ERC-721", "ERC-1155", "ERC-404"] as const;

/** Instances listed per collection (Blockscout's). */
const instancesPerCollection = 9;

type Query = { type?: string; token_contract_address_hash?: string; token_type?: string };

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: {
    type: { type: "string" },
    token_contract_address_hash: addressCursor,
    token_type: { type: "string", enum: [...nftTypes, "null", ""] },
    ...commonListQuery,
  },
} as const;

/**
 * Endpoint 11: the NFT collections an address holds ids of, ERC-721 first, then ERC-1155, then ERC-404,
 * token address ascending within; each with the number of ids held and the 9 highest of them.
 */
export function addressNftCollectionsRoute(app: FastifyInstance, { db }: ApiContext) {
  app.get<{ Params: { address_hash_param: string }; Querystring: Query }>(
    "/api/v2/addresses/:address_hash_param/nft/collections",
    { schema: { ...endpointDocs.addressNftCollections, params: addressHashParams, querystring } },
    async (request) => {
      const address = lowerHex(request.params.address_hash_param);
      const query = request.query;
      // Blockscout keeps the NFT types of the list; none left (e.g. `ERC-20`) means every NFT type.
      const types = tokenTypeList(query.type, nftTypes);
      if (types === null) throw invalidTokenType();
      const cursorToken = query.token_contract_address_hash;
      const cursorType = query.token_type;
      const rows = await listNftCollections(db, {
        address,
        types,
        cursor: {
          token_address: cursorToken && cursorToken !== "null" ? lowerHex(cursorToken) : null,
          token_type: cursorType && cursorType !== "null" ? cursorType : null,
        },
        limit: pageSize + 1,
        instances: instancesPerCollection,
      });
      const collections: NftCollectionRow[][] = [];
      for (const row of rows) {
        const current = collections[collections.length - 1];
        if (current && current[0].token_address === row.token_address) current.push(row);
        else collections.push([row]);
      }
      const shown = collections.slice(0, pageSize);
      const [tokens, addresses] = await Promise.all([
        findTokens(
          db,
          shown.map(([first]) => first.token_address),
        ),
        findAddresses(db, shown.flat().some((row) => row.is_unique) ? [address] : []),
      ]);
      return toPage(
        collections,
        (instances) => ({
          token: renderToken(tokens.get(instances[0].token_address)),
          amount: instances[0].amount,
          token_instances: instances.map((row) => ({
            token_type: row.type,
            value: row.type === "ERC-721" ? "1" : row.value,
            ...renderTokenInstance({
              id: row.token_id,
              instance: row,
              holder: address,
              token: null,
              addresses,
            }),
          })),
        }),
        ([last]) => ({ token_contract_address_hash: last.token_address, token_type: last.type }),
      );
    },
  );
}
