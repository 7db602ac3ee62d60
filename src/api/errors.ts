import type { FastifySchemaValidationError } from "fastify/types/schema.js";
import { BaseError } from "../errors.ts";
import { hashPattern, integerPatterns } from "./params.ts";
import { tokenTypeListFormat } from "./token-types.ts";

/**
 * Parameters that take one of several forms: Blockscout reports the failed `anyOf` and then why each
 * form failed, all under the parameter's pointer.
 */
const anyOfDetails = new Map<string, string[]>([
  [
    "block_hash_or_number_param",
    [
      'Failed to cast value using any of: Schema(title: "FullHash", type: :string), Schema(type: :integer)',
      "Invalid integer. Got: string",
      `Invalid format. Expected ~r/${hashPattern}/`,
    ],
  ],
]);

export type InvalidParameter = { title: "Invalid value"; source: { pointer: string }; detail: string };

/** An error the client caused, answered with `statusCode` and `body` as they are. */
export class ApiError extends BaseError {
  override name = "ApiError";
  override readonly isUserError = true;
  readonly statusCode: number;
  readonly body: unknown;

  constructor(statusCode: number, body: unknown) {
    super(`HTTP ${statusCode}`, { details: JSON.stringify(body) });
    this.statusCode = statusCode;
    this.body = body;
  }
}

/** 404 `{"message":"Not found"}`, Blockscout's answer for an unknown block, token or transaction. */
export function notFound(): ApiError {
  return new ApiError(404, { message: "Not found" });
}

/**
 * Turns schema validation failures into Blockscout's 422 body: one entry per bad parameter, with the
 * messages Blockscout's OpenApiSpex casting produces.
 */
export function invalidParameters(errors: FastifySchemaValidationError[]): ApiError {
  const byPointer = new Map<string, InvalidParameter>();
  const entries: InvalidParameter[] = [];
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    const name =
      error.keyword === "additionalProperties"
        ? String(params.additionalProperty)
        : error.keyword === "required"
          ? String(params.missingProperty)
          : error.instancePath.replace(/^\//, "").replace(/\/.*$/s, "");
    const pointer = `/${name}`;
    if (byPointer.has(pointer)) continue;
    // A Map, not an object: a parameter named `constructor` or `__proto__` must not find Object's members.
    const details =
      anyOfDetails.get(name) ??
      (error.keyword === "format" && params.format === tokenTypeListFormat.name
        ? tokenTypeListFormat.details
        : [detailOf(error, name)]);
    for (const detail of details) {
      const entry: InvalidParameter = { title: "Invalid value", source: { pointer }, detail };
      byPointer.set(pointer, entry);
      entries.push(entry);
    }
  }
  return new ApiError(422, { errors: entries });
}

function detailOf(error: FastifySchemaValidationError, name: string): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      return `Unexpected field: ${name}`;
    case "required":
      return `Missing field: ${name}`;
    case "enum":
      return "Invalid value for enum";
    case "pattern":
      return integerPatterns.has(String(params.pattern))
        ? "Invalid integer. Got: string"
        : `Invalid format. Expected ~r/${params.pattern}/`;
    case "type":
      return `Invalid ${params.type}`;
    default:
      return error.message ?? "Invalid value";
  }
}
