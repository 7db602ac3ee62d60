import type { FastifyInstance } from "fastify";
import type { Address } from "viem";
import { findAddresses } from "../../db/queries/addresses.ts";
import { findContractAbis } from "../../db/queries/contract-abis.ts";
import { findTokens } from "../../db/queries/token-balances.ts";
import { listTokenTransfers } from "../../db/queries/token-transfers.ts";
import { findTransaction, listInnerEffects } from "../../db/queries/transaction.ts";
import { listTransactionLogs } from "../../db/queries/transaction-logs.ts";
import { findUserOperations } from "../../db/queries/user-operations.ts";
import { describeCall } from "../../decode/describe-call.ts";
import {
  type SummaryVariable,
  summarizedTransfers,
  summarizeTransaction,
} from "../../decode/summarize-transaction.ts";
import { notFound } from "../errors.ts";
import { hashPattern, lowerHex } from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { loadTransactionActions, transactionKey } from "../transaction-actions.ts";
import { renderAddress } from "../views/address.ts";
import { renderToken } from "../views/token.ts";

const params = {
  type: "object",
  required: ["transaction_hash_param"],
  properties: { transaction_hash_param: { type: "string", pattern: hashPattern } },
} as const;

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: {
    apikey: { type: "string" },
    key: { type: "string" },
    // Blockscout's switch for the body it would send its interpretation service; accepted, the summary
    // itself is answered.
    just_request_body: { type: "string", enum: ["true", "false"] },
  },
} as const;

/**
 * Endpoint 7: what a transaction did, in words with typed variables. A configured interpretation
 * service is asked first; Sextant's own rule-based interpreter answers otherwise. A failed transaction
 * has no summary (`null`), as in Blockscout.
 */
export function transactionSummaryRoute(app: FastifyInstance, context: ApiContext) {
  const { db } = context;
  app.get<{ Params: { transaction_hash_param: string } }>(
    "/api/v2/transactions/:transaction_hash_param/summary",
    { schema: { ...endpointDocs.transactionSummary, params, querystring } },
    async (request, reply) => {
      const hash = lowerHex(request.params.transaction_hash_param);
      const transaction = await findTransaction(db, hash);
      if (transaction === null) throw notFound();
      // A failed transaction did nothing to tell; a pre-Byzantium receipt has no status and did.
      if (transaction.status === 0) return reply.type("application/json; charset=utf-8").send("null");
      const remote = await context.askInterpreter?.(hash);
      if (remote) return remote;
      const key = { block_number: transaction.block_number, index: transaction.index };
      const [transfers, innerEffects, logs, actions, known, abis, userOperations] = await Promise.all([
        listTokenTransfers(db, {
          transactions: [key],
          types: [],
          cursor: {},
          limit: summarizedTransfers,
          oldestFirst: true,
        }),
        listInnerEffects(db, key),
        listTransactionLogs(db, { transactions: [key] }),
        loadTransactionActions(db, context.protocols, [key]),
        findAddresses(db, transaction.to_address === null ? [] : [transaction.to_address]),
        findContractAbis(db, transaction.to_address === null ? [] : [transaction.to_address]),
        findUserOperations(db, hash),
      ]);
      const to = transaction.to_address === null ? undefined : known.get(transaction.to_address);
      const toIsContract = to?.is_contract ?? false;
      const { method } = describeCall({
        input: transaction.input,
        toIsContract,
        imported: transaction.to_address === null ? null : abis.get(transaction.to_address as Address)?.abi,
        tokenType: to?.token_type,
      });
      const transactionActions = actions.get(transactionKey(key.block_number, key.index)) ?? [];
      const tokenRows = await findTokens(db, [
        ...transfers.map((transfer) => transfer.token_address),
        ...[transaction.to_address, transaction.created_contract].filter((address) => address !== null),
        ...innerEffects.flatMap((effect) =>
          effect.created_contract === null ? [] : [effect.created_contract],
        ),
        ...transactionActions.flatMap(({ data }) =>
          Object.entries(data)
            .filter(([name]) => name.includes("address"))
            .map(([, value]) => String(value).toLowerCase()),
        ),
      ]);
      const summaries = summarizeTransaction({
        transaction,
        toIsContract,
        method,
        tokenTransfers: transfers,
        innerEffects,
        logs,
        actions: transactionActions,
        userOperations,
        tokens: tokenRows,
        nativeSymbol: context.nativeSymbol,
      });
      const variables = summaries.flatMap((summary) => Object.values(summary.summary_template_variables));
      const addresses = await findAddresses(
        db,
        variables.filter((variable) => variable.type === "address").map((variable) => variable.value),
      );
      const render = (variable: SummaryVariable) =>
        variable.type === "address"
          ? { type: "address", value: renderAddress(variable.value, addresses) }
          : variable.type === "token"
            ? { type: "token", value: renderToken(tokenRows.get(variable.value)) }
            : variable;
      return {
        success: true,
        data: {
          summaries: summaries.map((summary) => ({
            summary_template: summary.summary_template,
            summary_template_variables: Object.fromEntries(
              Object.entries(summary.summary_template_variables).map(([name, variable]) => [
                name,
                render(variable),
              ]),
            ),
          })),
        },
      };
    },
  );
}
