import { type JsonSchema, object, orNull, ref, refTo, string } from "./common.ts";
import { invalidParametersResponse, notFoundResponse } from "./errors.ts";

/** A summary variable of one type, whose value has the given schema. */
function variable(type: string, description: string, value: JsonSchema): JsonSchema {
  return object(
    { type: string("Variable type.", type, { enum: [type] }), value },
    { title: type, description },
  );
}

const SummaryVariable: JsonSchema = {
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

const TransactionSummary = orNull(
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

/** Endpoint 7's component schemas. */
export const summarySchemas: Record<string, JsonSchema> = { SummaryVariable, TransactionSummary };

/** The responses of endpoint 7, `/api/v2/transactions/{transaction_hash_param}/summary`. */
export const transactionSummaryResponses: Record<number, JsonSchema> = {
  200: refTo("TransactionSummary", "The summary, or `null` for a pending or failed transaction."),
  404: notFoundResponse("The transaction is not indexed."),
  422: invalidParametersResponse,
};
