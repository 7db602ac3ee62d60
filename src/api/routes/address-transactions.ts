import type { FastifyInstance } from "fastify";
import type { Address } from "viem";
import {
  findAddressTransactionCursor,
  listAddressTransactions,
  type TransactionSort,
} from "../../db/queries/address-transactions.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import { findContractAbis } from "../../db/queries/contract-abis.ts";
import { findTokens } from "../../db/queries/token-balances.ts";
import { listTokenTransfers } from "../../db/queries/token-transfers.ts";
import { timestamp } from "../format.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  bigintCursor,
  commonListQuery,
  cursorDecimal,
  cursorInteger,
  hashPattern,
  indexCursor,
  lowerHex,
  uint256Cursor,
} from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { loadTransactionActions, transactionKey } from "../transaction-actions.ts";
import { renderTokenTransfer, tokenTransferAddresses } from "../views/token-transfer.ts";
import { renderTransaction, transactionAddresses, transferPreview } from "../views/transaction.ts";

type Query = {
  filter?: "to" | "from";
  sort?: TransactionSort;
  order?: "asc" | "desc";
  block_number?: string;
  index?: string;
  value?: string;
  fee?: string;
  hash?: string;
};

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: {
    filter: { type: "string", enum: ["to", "from"] },
    sort: { type: "string", enum: ["block_number", "value", "fee"] },
    order: { type: "string", enum: ["asc", "desc"] },
    block_number: bigintCursor,
    index: indexCursor,
    value: uint256Cursor,
    fee: uint256Cursor,
    hash: { type: "string", pattern: hashPattern },
    inserted_at: { type: "string" },
    ...commonListQuery,
  },
} as const;

/** Endpoint 2: the transactions an address sent, received or created, newest first or sorted. */
export function addressTransactionsRoute(app: FastifyInstance, { db, chainHead, protocols }: ApiContext) {
  app.get<{ Params: { address_hash_param: string }; Querystring: Query }>(
    "/api/v2/addresses/:address_hash_param/transactions",
    { schema: { ...endpointDocs.addressTransactions, params: addressHashParams, querystring } },
    async (request) => {
      const address = lowerHex(request.params.address_hash_param);
      const query = request.query;
      // Blockscout sorts only when both are given; otherwise the default order holds.
      const sorted = query.sort !== undefined && query.order !== undefined;
      const sort = sorted ? (query.sort as TransactionSort) : "block_number";
      const order = sorted ? (query.order as "asc" | "desc") : "desc";
      let cursor = {
        block_number: cursorInteger(query.block_number),
        index: cursorInteger(query.index),
        value: cursorDecimal(query.value),
        fee: cursorDecimal(query.fee),
      };
      const leadingKey = sort === "block_number" ? cursor.block_number : cursor[sort];
      // Clients send partial cursors; the row they name gives the keys they left out.
      if (leadingKey === null && query.hash) {
        const transaction = { hash: lowerHex(query.hash) };
        cursor = (await findAddressTransactionCursor(db, { address, transaction })) ?? cursor;
      } else if (leadingKey === null && cursor.block_number !== null && cursor.index !== null) {
        const transaction = { block_number: cursor.block_number, index: cursor.index };
        cursor = (await findAddressTransactionCursor(db, { address, transaction })) ?? cursor;
      }
      const rows = await listAddressTransactions(db, {
        address,
        filter: query.filter,
        sort,
        order,
        cursor,
        limit: pageSize + 1,
      });
      const shown = rows.slice(0, pageSize);
      const transfers = await listTokenTransfers(db, {
        transactions: shown,
        perTransaction: transferPreview + 1,
        types: [],
        cursor: {},
        limit: shown.length * (transferPreview + 1),
      });
      const [addresses, tokens, head, actions, abis] = await Promise.all([
        findAddresses(db, [
          ...rows.flatMap(transactionAddresses),
          ...transfers.flatMap(tokenTransferAddresses),
        ]),
        findTokens(
          db,
          transfers.map((transfer) => transfer.token_address),
        ),
        chainHead(),
        loadTransactionActions(db, protocols, shown),
        findContractAbis(
          db,
          shown.flatMap((row) => (row.to_address === null ? [] : [row.to_address])),
        ),
      ]);
      const byTransaction = new Map<string, unknown[]>();
      for (const transfer of transfers) {
        const key = transactionKey(transfer.block_number, transfer.transaction_index);
        byTransaction.set(key, [
          ...(byTransaction.get(key) ?? []),
          renderTokenTransfer(transfer, addresses, tokens),
        ]);
      }
      return toPage(
        rows,
        (row) =>
          renderTransaction(row, addresses, head, {
            tokenTransfers: byTransaction.get(transactionKey(row.block_number, row.index)) ?? [],
            actions: actions.get(transactionKey(row.block_number, row.index)) ?? [],
            importedAbi: row.to_address === null ? null : (abis.get(row.to_address as Address)?.abi ?? null),
          }),
        (last) => ({
          block_number: last.block_number,
          index: last.index,
          hash: last.hash,
          inserted_at: timestamp(last.timestamp),
          value: last.value,
          fee: last.fee,
        }),
      );
    },
  );
}
