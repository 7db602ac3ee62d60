import { findAddresses } from "../../db/queries/addresses.ts";
import { findTokens, listNftCollections, type NftCollectionRow } from "../../db/queries/token-balances.ts";
import { nftTokenTypes } from "../../db/token-types.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { pageSize, toPage } from "../paging.ts";
import { addressCursor, addressHashParams, commonListQuery, documented, lowerHex } from "../params.ts";
import { demo, lowerAddress, object, string } from "../schemas/common.ts";
import { emptyForUnknown, itemsCount, listPage, listResponses } from "../schemas/lists.ts";
import { readTokenTypes, tokenTypesParameter } from "../token-types.ts";
import { renderToken, renderTokenInstance } from "../views/token.ts";

/** Instances listed per collection (Blockscout's). */
const instancesPerCollection = 9;

type Query = { type?: string; token_contract_address_hash?: string; token_type?: string };

/**
 * Endpoint 11: the NFT collections an address holds ids of, ERC-721 first, then ERC-1155, then ERC-404,
 * token address ascending within; each with the number of ids held and the 9 highest of them.
 */
export const addressNftCollections = defineEndpoint<{
  Params: { address_hash_param: string };
  Querystring: Query;
}>({
  number: 11,
  method: "GET",
  path: "/api/v2/addresses/:address_hash_param/nft/collections",
  schema: {
    operationId: "addressNftCollections",
    summary: "NFT collections of an address",
    description: `One item per NFT token the address holds ids of: ERC-721 first, then ERC-1155, then ERC-404, token address ascending within; each with the 9 highest ids held. ${emptyForUnknown}`,
    tags: ["addresses"],
    params: addressHashParams(),
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        type: tokenTypesParameter(nftTokenTypes),
        token_contract_address_hash: addressCursor("token of the last collection"),
        token_type: documented(
          { type: "string", enum: [...nftTokenTypes, "null", ""] },
          { description: "Cursor key from `next_page_params`: token type of the last collection." },
        ),
        ...commonListQuery,
      },
    },
    response: listResponses("NftCollectionsPage", "A page of collections."),
  },
  components: {
    NftCollectionsNextPageParams: object({
      token_contract_address_hash: lowerAddress("Token of the last collection.", demo.erc721.toLowerCase()),
      token_type: string("Token type of the last collection.", "ERC-721"),
      items_count: itemsCount,
    }),
    NftCollectionsPage: listPage(
      "NftCollection",
      "NftCollectionsNextPageParams",
      "NFT collections of an address.",
    ),
  },
  handler: async ({ db, ipfsPublicGateway }, request) => {
    const address = lowerHex(request.params.address_hash_param);
    const query = request.query;
    // Blockscout keeps the NFT types of the list; none left (e.g. `ERC-20`) means every NFT type.
    const types = readTokenTypes(query.type, nftTokenTypes);
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
    // Each collection holds at least the row that opened it.
    const collections: [NftCollectionRow, ...NftCollectionRow[]][] = [];
    for (const row of rows) {
      const current = collections.at(-1);
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
            ipfsPublicGateway,
          }),
        })),
      }),
      ([last]) => ({ token_contract_address_hash: last.token_address, token_type: last.type }),
    );
  },
});
