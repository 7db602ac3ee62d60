import { demo } from "./common.ts";

/** The description and the example (a real value of the demo chain) of a path or query parameter. */
export type ParameterDoc = { description: string; example?: string };

const cursor = (what: string): ParameterDoc => ({
  description: `Cursor key from \`next_page_params\`: ${what}. Digits, or \`null\`/empty for none.`,
});
const hexCursor = (what: string): ParameterDoc => ({
  description: `Cursor key from \`next_page_params\`: ${what}. Hex, or \`null\`/empty for none.`,
});
const tokenTypeList = (types: string): ParameterDoc => ({
  description: `Comma-separated token types (${types}), any letter case, optionally in brackets; empty or absent for all.`,
  example: "ERC-20,ERC-721",
});

/**
 * A cursor `value` that `next_page_params` carries as a JSON number: also accepted as a double prints it.
 */
const valueCursor = (what: string): ParameterDoc => ({
  description: `Cursor key from \`next_page_params\`: ${what}. Digits, or as a JSON double prints them (\`4.994e+21\`, \`1152921504606847000\`): the page still resumes right after the last row, found by the other keys. \`null\`/empty for none.`,
});

/** The cursor keys of both token-transfer lists. */
const transferCursor: Record<string, ParameterDoc> = {
  index: cursor("log index of the last transfer"),
  index_in_batch: cursor("ids of the last ERC-1155 batch already listed"),
  batch_log_index: cursor("log index of that batch (accepted back, not needed)"),
  batch_block_hash: hexCursor("block of that batch (accepted back, not needed)"),
  batch_transaction_hash: hexCursor("transaction of that batch (accepted back, not needed)"),
};

/** Parameters by name, as most endpoints mean them. */
const common: Record<string, ParameterDoc> = {
  address_hash_param: {
    description: "Address, `0x` and 40 hex digits in any letter case.",
    example: demo.holder,
  },
  filter: { description: "`to`: received (and created); `from`: sent. Absent: both." },
  block_number: cursor("block number of the last item"),
  index: cursor("index of the last item"),
  transaction_index: cursor("transaction index of the last item"),
  items_count: {
    description: "Cursor key from `next_page_params`: items already read. Accepted and ignored.",
  },
  apikey: { description: "API key (Blockscout's); accepted and ignored." },
  key: { description: "Secret key (Blockscout's); accepted and ignored." },
};

/** What differs per endpoint (by operationId) from the common meaning. */
const perEndpoint: Record<string, Record<string, ParameterDoc>> = {
  addressTokens: {
    type: tokenTypeList("ERC-20, ERC-721, ERC-1155, ERC-404, ERC-7984"),
    value: valueCursor("value of the last row"),
    id: {
      description: "Cursor key from `next_page_params`: token address and id of the last row (`0x…:-1`).",
    },
    fiat_value: { description: "Cursor key from `next_page_params` (always null); accepted and ignored." },
    token_name: { description: "Cursor key from `next_page_params`; accepted and ignored." },
    token_type: { description: "Cursor key from `next_page_params`; accepted and ignored." },
  },
  addressTransactions: {
    filter: { description: "`to`: received or created; `from`: sent. Absent: all.", example: "from" },
    sort: { description: "Sort key; applies only together with `order`.", example: "value" },
    order: { description: "Sort direction; applies only together with `sort`.", example: "desc" },
    index: cursor("position of the last transaction in its block"),
    value: cursor("value of the last transaction (with `sort=value`)"),
    fee: cursor("fee of the last transaction (with `sort=fee`)"),
    hash: {
      description:
        "Cursor key from `next_page_params`: hash of the last transaction; used when the sort key is missing.",
    },
    inserted_at: { description: "Cursor key from `next_page_params`; accepted and ignored." },
  },
  addressLogs: {
    address_hash_param: { description: "Address of the emitting contract.", example: demo.erc20 },
    topic: {
      description: "Only logs carrying this 32-byte topic, at any position.",
      example: demo.transferTopic,
    },
  },
  blockWithdrawals: {
    block_hash_or_number_param: {
      description: "Block number, or block hash (`0x` and 64 hex digits).",
      example: "1",
    },
  },
  tokenHolders: {
    address_hash_param: { description: "Token contract address.", example: demo.erc20 },
    value: valueCursor("balance of the last holder"),
    address_hash: hexCursor("address of the last holder"),
    token_id: cursor("token id of the last row (ERC-1155)"),
  },
  transactionSummary: {
    transaction_hash_param: {
      description: "Transaction hash, `0x` and 64 hex digits.",
      example: demo.transaction,
    },
    just_request_body: {
      description:
        "Blockscout's switch for the body of its interpretation request; accepted, the summary is answered.",
    },
  },
  tokenTransfers: {
    type: tokenTypeList("ERC-20, ERC-721, ERC-1155, ERC-404, ERC-7984"),
    limit: {
      description:
        "Items wanted (Blockscout's; sign ignored): up to 50 that many and no next page; more, or absent, a page of 50.",
      example: "10",
    },
    ...transferCursor,
  },
  tokenInstanceHolders: {
    address_hash_param: { description: "Token contract address.", example: demo.erc1155 },
    token_id_param: { description: "Token id (decimal).", example: "1" },
    value: valueCursor("balance of the last holder"),
    address_hash: hexCursor("address of the last holder"),
    token_id: cursor("the token id"),
  },
  addressNftCollections: {
    type: tokenTypeList("ERC-721, ERC-1155, ERC-404; others are dropped"),
    token_contract_address_hash: hexCursor("token of the last collection"),
    token_type: { description: "Cursor key from `next_page_params`: token type of the last collection." },
  },
  addressInternalTransactions: {
    address_hash_param: {
      description: "Address, `0x` and 40 hex digits in any letter case.",
      example: demo.caller,
    },
    filter: { description: "`to`: received (and created); `from`: made. Absent: both.", example: "from" },
  },
  addressTokenTransfers: {
    type: tokenTypeList("ERC-20, ERC-721, ERC-1155, ERC-404, ERC-7984"),
    filter: { description: "`to`: received; `from`: sent. Absent: both.", example: "to" },
    token: { description: "Only transfers of this token contract.", example: demo.erc20 },
    ...transferCursor,
  },
};

/** The documentation of parameter `name` of the endpoint `operationId`, if any. */
export function parameterDoc(operationId: string, name: string): ParameterDoc | undefined {
  return perEndpoint[operationId]?.[name] ?? common[name];
}
