import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { at } from "../support/elements.ts";

/** ajv-formats' `addFormats`: the package is CommonJS, its default export arrives wrapped under ESM. */
export const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** A response body checker: the problems found, empty when the body conforms. */
export type ResponseValidator = (apiPath: string, status: number, body: unknown) => string[];

/** The part of an OpenAPI document the validators read. */
export type OpenApiDocument = {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
};

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`,
  );
}

/** The document's path template that `apiPath` (e.g. `/api/v2/blocks/1/withdrawals`) is an instance of. */
function templateOf(templates: string[], apiPath: string, prefix: string): string | undefined {
  const path = at(apiPath.split("?"), 0);
  // Literal templates first: `/v2/tokens/` before `/v2/tokens/{address_hash_param}`.
  const ordered = [...templates].sort(
    (a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0),
  );
  return ordered.find((template) =>
    new RegExp(`^${(prefix + template).replace(/\{[^}]+\}/g, "[^/]+").replace(/\/$/, "")}/?$`).test(path),
  );
}

/**
 * A validator of responses against the OpenAPI `document` added to `ajv` as `id`: each response is checked
 * against the schema of its path template and status. `prefix` is what Sextant's paths have before the
 * document's (`/api` when the document's paths start at `/v2`).
 */
export function validatorFor(
  ajv: Ajv | Ajv2020,
  id: string,
  document: OpenApiDocument,
  prefix: string,
): ResponseValidator {
  const compiled = new Map<string, ValidateFunction | null>();
  return (apiPath, status, body) => {
    const template = templateOf(Object.keys(document.paths), apiPath, prefix);
    if (!template) return [`the document has no path for ${apiPath}`];
    const key = `${template} ${status}`;
    if (!compiled.has(key)) {
      const response = document.paths[template]?.get?.responses?.[String(status)] as
        | { content?: Record<string, { schema?: unknown }> }
        | undefined;
      const pointer = [
        "paths",
        template,
        "get",
        "responses",
        String(status),
        "content",
        "application/json",
        "schema",
      ]
        .map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1"))
        .join("/");
      compiled.set(
        key,
        response?.content?.["application/json"]?.schema ? ajv.compile({ $ref: `${id}#/${pointer}` }) : null,
      );
    }
    const validate = compiled.get(key);
    if (!validate) return [`the document describes no ${status} JSON response for ${template}`];
    return validate(body) ? [] : describe(validate.errors);
  };
}

/**
 * A validator of responses against Sextant's own OpenAPI 3.1 document, as the running app serves it at
 * `/api/v2/openapi.json`. Its paths may be written with or without the `/api` prefix.
 */
export function ownDocumentValidator(document: OpenApiDocument): ResponseValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, "sextant");
  const prefixed = Object.keys(document.paths).some((path) => path.startsWith("/api/"));
  return validatorFor(ajv, "sextant", document, prefixed ? "" : "/api");
}
