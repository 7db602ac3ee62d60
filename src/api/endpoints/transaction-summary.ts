import { findAddresses } from "../../db/queries/addresses.ts";
import { transactionKey } from "../../db/queries/of-transactions.ts";
import { findTokens } from "../../db/queries/token-balances.ts";
import { listTokenTransfers } from "../../db/queries/token-transfers.ts";
import { findTransaction, listInnerEffects } from "../../db/queries/transaction.ts";
import { listTransactionLogs } from "../../db/queries/transaction-logs.ts";
import { findUserOperations } from "../../db/queries/user-operations.ts";
import { describeCall } from "../../decode/describe-call.ts";
import {
  type SummaryVariable,
  summarizedInnerEffects,
  summarizedTransfers,
  summarizeTransaction,
  wrapTopics,
} from "../../decode/summarize-transaction.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { notFound } from "../errors.ts";
import { apiKeys, documented, hashPattern, lowerHex } from "../params.ts";
import { demo, type JsonSchema, object, orNull, ref, refTo, string } from "../schemas/common.ts";
import { commonErrorResponses, invalidParametersResponse, notFoundResponse } from "../schemas/errors.ts";
import { actionEvents, actionsOfLogs } from "../transaction-actions.ts";
import { renderAddress } from "../views/address.ts";
import { renderToken } from "../views/token.ts";

/** A summary variable of one type, whose value has the given schema. */
function variable(type: string, description: string, value: JsonSchema): JsonSchema {
  return object(
    { type: string("Variable type.", type, { enum: [type] }), value },
    { title: type, description },
  );
}

const summaryVariableSchema: JsonSchema = {
  description: "A value to put in place of a `{name}` placeholder; never null.",
  anyOf: [
    variable("string", "Plain text (e.g. the action).", string("Text.", "Transfer")),
    variable(
      "currency",
      "An amount in whole units.",
      string("Decimal number.", "1.5", { pattern: "^-?[0-9]+(\\.[0-9]+)?$" }),
    ),
    variable("token", "A token.", ref("Token")),
    variable("address", "An address.", ref("Address")),
    variable("timestamp", "A point in time.", { anyOf: [{ type: "string" }, { type: "integer" }] }),
    variable("domain", "A domain name.", string("Domain.", "vitalik.eth")),
    variable("method", "A called method.", string("Method name.", "transfer")),
    variable("dexTag", "A DEX or protocol tag.", { type: "object" }),
    variable("external_link", "A link to an external page.", { type: "object" }),
  ],
};

const transactionSummarySchema = orNull(
  object(
    {
      success: { type: "boolean", description: "Always true.", enum: [true] },
      data: object({
        summaries: {
          type: "array",
          items: object({
            summary_template: string(
              "Sentence with `{name}` placeholders.",
              "{action_type} {amount} {token} to {to_address}",
            ),
            summary_template_variables: {
              type: "object",
              description: "The value of each placeholder of the template, by name.",
              additionalProperties: ref("SummaryVariable"),
            },
          }),
        },
      }),
    },
    {
      description:
        "What the transaction did, in words; `null` for a pending or failed transaction (Blockscout's interpreter shape).",
    },
  ),
);

/**
 * Endpoint 7: what a transaction did, in words with typed variables. A configured interpretation
 * service is asked first; Sextant's own rule-based interpreter answers otherwise. A failed transaction
 * has no summary (`null`), as in Blockscout.
 */
export const transactionSummary = defineEndpoint<{ Params: { transaction_hash_param: string } }>({
  number: 7,
  method: "GET",
  path: "/api/v2/transactions/:transaction_hash_param/summary",
  schema: {
    operationId: "transactionSummary",
    summary: "Summary of a transaction",
    description:
      "What the transaction did, in words, as Blockscout's interpreter says it (`{success, data: {summaries}}`); every variable has a non-null value. A pending or failed transaction gives 200 with body `null`.",
    tags: ["transactions"],
    params: {
      type: "object",
      required: ["transaction_hash_param"],
      properties: {
        transaction_hash_param: documented(
          { type: "string", pattern: hashPattern },
          { description: "Transaction hash, `0x` and 64 hex digits.", example: demo.transaction },
        ),
      },
    },
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        ...apiKeys,
        // Blockscout's switch for the body it would send its interpretation service; accepted, the summary
        // itself is answered.
        just_request_body: documented(
          { type: "string", enum: ["true", "false"] },
          {
            description:
              "Blockscout's switch for the body of its interpretation request; accepted, the summary is answered.",
          },
        ),
      },
    },
    response: {
      200: refTo("TransactionSummary", "The summary, or `null` for a pending or failed transaction."),
      404: notFoundResponse("The transaction is not indexed."),
      422: invalidParametersResponse,
      ...commonErrorResponses,
    },
  },
  components: { SummaryVariable: summaryVariableSchema, TransactionSummary: transactionSummarySchema },
  // An interpretation service's answers are not the database's.
  cacheable: (context) => context.askInterpreter === undefined,
  handler: async (context, request, reply) => {
    const { db } = context;
    const hash = lowerHex(request.params.transaction_hash_param);
    const transaction = await findTransaction(db, hash);
    if (transaction === null) throw notFound();
    // A failed transaction did nothing to tell; a pre-Byzantium receipt has no status and did.
    if (transaction.status === 0) return reply.type("application/json; charset=utf-8").send("null");
    const remote = await context.askInterpreter?.(hash);
    if (remote) return remote;
    const key = { block_number: transaction.block_number, index: transaction.index };
    // One scan of the transaction's logs: the protocols' events for its actions, and the called contract's
    // wraps, the only logs a summary tells of itself.
    const asked = listTransactionLogs(db, {
      transactions: [transaction],
      events: [
        ...actionEvents(context.protocols),
        ...(transaction.to_address === null
          ? []
          : [{ topic0s: wrapTopics, emitter: transaction.to_address }]),
      ],
    });
    const [transfers, innerEffects, actions, known, userOperations] = await Promise.all([
      listTokenTransfers(db, {
        transactions: [transaction],
        types: [],
        cursor: {},
        limit: summarizedTransfers,
        oldestFirst: true,
      }),
      listInnerEffects(db, { ...key, from_address: transaction.from_address }, summarizedInnerEffects),
      asked.then((logs) => actionsOfLogs(db, context.protocols, logs)),
      findAddresses(db, [], {
        withAbis: transaction.to_address === null ? [] : [transaction.to_address],
      }),
      findUserOperations(db, hash),
    ]);
    const to = transaction.to_address === null ? undefined : known.get(transaction.to_address);
    const toIsContract = to?.is_contract ?? false;
    const { method } = describeCall({
      input: transaction.input,
      toIsContract,
      imported: to?.abi,
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
      logs: await asked,
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
});
