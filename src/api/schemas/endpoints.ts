import { accountAbstractionStatusResponses } from "./account-abstraction.ts";
import {
  decimal,
  demo,
  fullHash,
  integer,
  type JsonSchema,
  lowerAddress,
  object,
  orNull,
  ref,
  refTo,
  string,
  timestamp,
} from "./common.ts";
import { commonErrorResponses, invalidParametersResponse, notFoundResponse } from "./errors.ts";
import { transactionSummaryResponses } from "./summary.ts";

/** What a route's schema carries for the OpenAPI document besides its request validation. */
export type EndpointDocs = {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  response: Record<number, JsonSchema>;
};

const itemsCount = integer("Items on the page just read (always 50).", 50);
const blockNumber = integer("Block number of the last item.", 285);

/**
 * The `next_page_params` of each list, by component name: the keys to send back as query parameters for
 * the next page. Numbers here are JSON numbers; they are accepted back as digits.
 */
const cursorSchemas: Record<string, JsonSchema> = {
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
  AddressTransactionsNextPageParams: object({
    block_number: blockNumber,
    index: integer("Position of the last transaction in its block.", 0),
    hash: fullHash(
      "Hash of the last transaction.",
      "0x7ebab240032cadf022ba39df2110c9f35c0fd2dfb6e83850ce2a6969bce1cc20",
    ),
    inserted_at: timestamp("Block time of the last transaction."),
    value: decimal("Value of the last transaction.", "0"),
    fee: decimal("Fee of the last transaction.", "81848000572936"),
    items_count: itemsCount,
  }),
  BlockNumberAndIndexNextPageParams: object({
    block_number: blockNumber,
    index: integer("Index of the last log in its block.", 3),
    items_count: itemsCount,
  }),
  WithdrawalsNextPageParams: object({
    index: integer("Index of the last withdrawal.", 15),
    items_count: itemsCount,
  }),
  TokenHoldersNextPageParams: {
    ...object({
      address_hash: lowerAddress("Last holder.", demo.holder.toLowerCase()),
      value: integer("Balance of the last holder, exact digits (may exceed 2^64).", 5000000000000000000),
      token_id: decimal("Token id of the last row (ERC-1155 and ERC-404 ids only).", "1"),
      items_count: itemsCount,
    }),
    required: ["address_hash", "value", "items_count"],
  },
  TokenInstanceHoldersNextPageParams: object({
    address_hash: lowerAddress("Last holder.", demo.holder.toLowerCase()),
    value: integer("Balance of the last holder, exact digits (may exceed 2^64).", 30),
    token_id: decimal("The token id.", "1"),
    items_count: itemsCount,
  }),
  TokenTransfersNextPageParams: {
    ...object({
      block_number: integer("Block number of the last transfer.", 358),
      index: integer("Log index of the last transfer.", 0),
      batch_log_index: integer("Log index of the ERC-1155 batch the page ended in.", 0),
      batch_block_hash: fullHash(
        "Block of that batch.",
        "0xe8abad55e8869fc178ad1e6908c395fd7a2a694a68744570a29ccd10dea88e94",
      ),
      batch_transaction_hash: fullHash(
        "Transaction of that batch.",
        "0xab166d01c7f151aece88d908d4128b9614d6b90cc79eec0659513a2dd8fcf615",
      ),
      index_in_batch: integer("Ids of that batch already listed.", 4),
      items_count: itemsCount,
    }),
    required: ["block_number", "index", "items_count"],
    description: "The batch keys are sent only when the page ends inside an ERC-1155 batch with ids left.",
  },
  NftCollectionsNextPageParams: object({
    token_contract_address_hash: lowerAddress("Token of the last collection.", demo.erc721.toLowerCase()),
    token_type: string("Token type of the last collection.", "ERC-721"),
    items_count: itemsCount,
  }),
  InternalTransactionsNextPageParams: object({
    block_number: integer("Block number of the last call.", 346),
    index: integer("Index of the last call in its transaction.", 1),
    transaction_index: integer("Index of the last call's transaction in its block.", 2),
    items_count: itemsCount,
  }),
};

/** A list page: 50 items at most and the cursor of the next page, null on the last. */
function page(item: string, cursor: string, description: string): JsonSchema {
  return object(
    {
      items: { type: "array", maxItems: 50, items: ref(item) },
      next_page_params: refTo(
        cursor,
        "Keys to send back as query parameters for the next page; null on the last page.",
        {
          nullable: true,
        },
      ),
    },
    { description },
  );
}

const pageSchemas: Record<string, JsonSchema> = {
  AddressTokensPage: page(
    "AddressTokenBalance",
    "AddressTokensNextPageParams",
    "Token balances of an address.",
  ),
  TransactionsPage: page("Transaction", "AddressTransactionsNextPageParams", "Transactions."),
  LogsPage: page("Log", "BlockNumberAndIndexNextPageParams", "Logs."),
  WithdrawalsPage: page("Withdrawal", "WithdrawalsNextPageParams", "Withdrawals."),
  TokenHoldersPage: page("HolderItem", "TokenHoldersNextPageParams", "Holders of a token."),
  TokenInstanceHoldersPage: page(
    "HolderItem",
    "TokenInstanceHoldersNextPageParams",
    "Holders of one token id.",
  ),
  TokenTransfersPage: page("TokenTransfer", "TokenTransfersNextPageParams", "Token transfers."),
  NftCollectionsPage: page("NftCollection", "NftCollectionsNextPageParams", "NFT collections of an address."),
  InternalTransactionsPage: page(
    "InternalTransaction",
    "InternalTransactionsNextPageParams",
    "Internal transactions.",
  ),
};

/** The list envelopes and their cursors, by component name. */
export const listSchemas: Record<string, JsonSchema> = { ...cursorSchemas, ...pageSchemas };

function list(pageName: string, description: string, notFound?: string): Record<number, JsonSchema> {
  const responses: Record<number, JsonSchema> = {
    200: refTo(pageName, description),
    422: invalidParametersResponse,
    ...commonErrorResponses,
  };
  if (notFound !== undefined) responses[404] = notFoundResponse(notFound);
  return responses;
}

const emptyForUnknown = "A valid address never seen on chain gives 200 with an empty page.";

/** Everything the OpenAPI document says of each of the 13 endpoints, keyed by route. */
export const endpointDocs = {
  addressTokens: {
    operationId: "addressTokens",
    summary: "Token balances of an address",
    description: `Endpoint 1. Current balances above zero, largest value first. ERC-721 holdings are one row per token (value = ids held); ERC-1155 and ERC-404 ids one row each, with their instance. ${emptyForUnknown}`,
    tags: ["addresses"],
    response: list("AddressTokensPage", "A page of token balances."),
  },
  addressTransactions: {
    operationId: "addressTransactions",
    summary: "Transactions of an address",
    description: `Endpoint 2. Transactions the address sent, received or created, newest first (block number, then position, descending), or sorted by \`sort\` and \`order\`. ${emptyForUnknown}`,
    tags: ["addresses"],
    response: list("TransactionsPage", "A page of transactions."),
  },
  addressLogs: {
    operationId: "addressLogs",
    summary: "Logs emitted by an address",
    description: `Endpoint 3. Logs the address emitted, newest first (block number, then log index, descending), optionally only those carrying \`topic\` at any position. ${emptyForUnknown}`,
    tags: ["addresses"],
    response: list("LogsPage", "A page of logs."),
  },
  blockWithdrawals: {
    operationId: "blockWithdrawals",
    summary: "Withdrawals of a block",
    description: "Endpoint 4. The beacon-chain withdrawals a block carried, highest index first.",
    tags: ["blocks"],
    response: list(
      "WithdrawalsPage",
      "A page of withdrawals.",
      "The block is not indexed (number above the indexed head, or unknown hash).",
    ),
  },
  addressWithdrawals: {
    operationId: "addressWithdrawals",
    summary: "Withdrawals received by an address",
    description: `Endpoint 5. Withdrawals credited to the address, highest index first. ${emptyForUnknown}`,
    tags: ["addresses"],
    response: list("WithdrawalsPage", "A page of withdrawals."),
  },
  tokenHolders: {
    operationId: "tokenHolders",
    summary: "Holders of a token",
    description:
      "Endpoint 6. Current balances above zero, largest first, then holder address descending; the zero address is left out. ERC-1155: one row per (holder, id). `value` in `next_page_params` is a JSON number with all its digits.",
    tags: ["tokens"],
    response: list("TokenHoldersPage", "A page of holders.", "The token is not indexed."),
  },
  transactionSummary: {
    operationId: "transactionSummary",
    summary: "Summary of a transaction",
    description:
      "Endpoint 7. What the transaction did, in words, as Blockscout's interpreter says it (`{success, data: {summaries}}`); every variable has a non-null value. A pending or failed transaction gives 200 with body `null`.",
    tags: ["transactions"],
    response: { ...transactionSummaryResponses, ...commonErrorResponses },
  },
  tokenTransfers: {
    operationId: "tokenTransfers",
    summary: "Token transfers of the chain",
    description:
      "Endpoint 8. Every token transfer, newest first (block number, then log index, descending); an ERC-1155 batch is one item per id.",
    tags: ["token transfers"],
    response: list("TokenTransfersPage", "A page of token transfers."),
  },
  tokenInstanceHolders: {
    operationId: "tokenInstanceHolders",
    summary: "Holders of one token id",
    description:
      "Endpoint 9. Holders of one id of an ERC-721, ERC-1155 or ERC-404 token, largest balance first, then holder address descending. A negative id gives an empty page.",
    tags: ["tokens"],
    response: list(
      "TokenInstanceHoldersPage",
      "A page of holders.",
      "The token is not indexed, or is an ERC-20 token.",
    ),
  },
  accountAbstractionStatus: {
    operationId: "accountAbstractionStatus",
    summary: "ERC-4337 indexer status",
    description:
      "Endpoint 10. Indexing state of user operations per entry-point version; the flags are the real state of Sextant's ERC-4337 indexing.",
    tags: ["account abstraction"],
    response: { ...accountAbstractionStatusResponses, ...commonErrorResponses },
  },
  addressNftCollections: {
    operationId: "addressNftCollections",
    summary: "NFT collections of an address",
    description: `Endpoint 11. One item per NFT token the address holds ids of: ERC-721 first, then ERC-1155, then ERC-404, token address ascending within; each with the 9 highest ids held. ${emptyForUnknown}`,
    tags: ["addresses"],
    response: list("NftCollectionsPage", "A page of collections."),
  },
  addressInternalTransactions: {
    operationId: "addressInternalTransactions",
    summary: "Internal transactions of an address",
    description: `Endpoint 12. Internal calls the address made, received or was created by, newest first (block number, transaction index, call index, descending). The top-level call (index 0, type call) is left out: it repeats the transaction itself. ${emptyForUnknown}`,
    tags: ["addresses"],
    response: list("InternalTransactionsPage", "A page of internal transactions."),
  },
  addressTokenTransfers: {
    operationId: "addressTokenTransfers",
    summary: "Token transfers of an address",
    description: `Endpoint 13. Token transfers from or to the address, newest first; a self-transfer appears once, an ERC-1155 batch is one item per id. ${emptyForUnknown}`,
    tags: ["addresses"],
    response: list("TokenTransfersPage", "A page of token transfers."),
  },
} satisfies Record<string, EndpointDocs>;
