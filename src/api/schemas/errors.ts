import { type JsonSchema, object, refTo, string } from "./common.ts";

/** Blockscout's error bodies (contract rule 7), by component name. */
export const errorSchemas: Record<string, JsonSchema> = {
  ValidationErrors: object(
    {
      errors: {
        type: "array",
        description: "One entry per bad parameter (a parameter of several forms: one per form tried).",
        minItems: 1,
        items: object({
          title: string("Always `Invalid value`.", "Invalid value", { enum: ["Invalid value"] }),
          source: object({
            pointer: string("`/` and the parameter's name.", "/address_hash_param", { pattern: "^/" }),
          }),
          detail: string(
            "What is wrong, in the words of Blockscout's parameter casting.",
            "Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/",
            {
              examples: [
                "Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/",
                "Invalid value for enum",
                "Unexpected field: foo",
                "Invalid integer. Got: string",
              ],
            },
          ),
        }),
      },
    },
    { description: "A malformed path or query parameter, or an unknown query parameter." },
  ),
  NotFound: object(
    { message: string("Always `Not found`.", "Not found", { enum: ["Not found"] }) },
    { description: "The block, token or transaction named in the path is not indexed." },
  ),
  UnknownAction: object(
    {
      message: string("Always `Unknown API v2 action`.", "Unknown API v2 action", {
        enum: ["Unknown API v2 action"],
      }),
    },
    { description: "A path under `/api/v2` that matches no endpoint." },
  ),
  InternalError: object(
    {
      message: string(
        "Always `Internal server error`; details are logged, never sent.",
        "Internal server error",
        {
          enum: ["Internal server error"],
        },
      ),
    },
    { description: "The request failed on the server (e.g. the database is unreachable)." },
  ),
};

/** The responses of a failed request that every endpoint documents. */
export const commonErrorResponses: Record<number, JsonSchema> = {
  400: {
    ...refTo(
      "UnknownAction",
      "Unknown API v2 action: the path matches no endpoint (e.g. a misspelt segment).",
    ),
  },
  500: { ...refTo("InternalError", "Internal server error.") },
};

/** 422 with Blockscout's body, for endpoints that take parameters. */
export const invalidParametersResponse: JsonSchema = refTo(
  "ValidationErrors",
  "A malformed path or query parameter, or an unknown query parameter.",
);

/** 404 `{"message":"Not found"}` with what was not found. */
export function notFoundResponse(what: string): JsonSchema {
  return refTo("NotFound", what);
}
