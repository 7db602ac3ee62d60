import { readFileSync } from "node:fs";
import swagger from "@fastify/swagger";
import type { FastifyInstance, FastifySchema } from "fastify";
import { accountAbstractionSchemas } from "./schemas/account-abstraction.ts";
import type { JsonSchema } from "./schemas/common.ts";
import { listSchemas } from "./schemas/endpoints.ts";
import { errorSchemas } from "./schemas/errors.ts";
import { objectSchemas } from "./schemas/objects.ts";
import { parameterDoc } from "./schemas/parameters.ts";
import { summarySchemas } from "./schemas/summary.ts";

/** Where the OpenAPI document is served. */
export const openApiPath = "/api/v2/openapi.json";

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

const description = `Read-only, Blockscout-compatible REST API over an EVM chain indexed by Sextant.

Lists return \`{"items": [...], "next_page_params": {...} | null}\`, 50 items per page, newest first unless said
otherwise; send the keys of \`next_page_params\` back as query parameters (as strings; \`null\` or empty for
none; partial cursors are accepted) for the next page. Amounts, fees, gas values, balances and token ids are
strings of decimal digits; block numbers, indexes and counts are numbers. Address objects' \`hash\` and token
\`address_hash\` are EIP-55 checksummed, every other hash lowercase. Errors: 422
\`{"errors":[{"title","source":{"pointer"},"detail"}]}\` for a bad parameter, 404 \`{"message":"Not found"}\`,
400 \`{"message":"Unknown API v2 action"}\` for a path that matches no endpoint.`;

/**
 * Registers `@fastify/swagger`, which builds the OpenAPI 3.1 document from the schemas of the routes
 * registered after it (their request schemas, plus the `response` and descriptions of
 * `schemas/endpoints.ts`), and serves the document at `openApiPath`. Call before registering routes.
 *
 * Responses keep being written with `JSON.stringify`: compiling the response schemas would drop keys
 * they do not list and coerce types, and some routes send JSON text they wrote themselves.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Sextant API", version, description },
      tags: [
        { name: "addresses", description: "Lists about one address." },
        { name: "blocks", description: "Lists about one block." },
        { name: "transactions", description: "One transaction." },
        { name: "tokens", description: "Lists about one token." },
        { name: "token transfers", description: "Token transfers of the whole chain." },
        { name: "account abstraction", description: "ERC-4337 user-operation indexing." },
      ],
      components: {
        schemas: {
          ...objectSchemas,
          ...listSchemas,
          ...summarySchemas,
          ...accountAbstractionSchemas,
          ...errorSchemas,
        } as never,
      },
    },
    transform: ({ schema, url }) => ({ schema: withParameterDocs(schema), url }),
  });
  app.get(openApiPath, { schema: { hide: true } }, async () => app.swagger());
}

/** A route schema whose path and query parameters carry their descriptions and examples. */
function withParameterDocs(schema: FastifySchema): FastifySchema {
  const operationId = schema?.operationId;
  if (!operationId) return schema;
  const documented = (parameters: unknown) => {
    const object = parameters as { properties?: Record<string, JsonSchema> } | undefined;
    if (!object?.properties) return parameters;
    const properties = Object.fromEntries(
      Object.entries(object.properties).map(([name, property]) => {
        const doc = parameterDoc(operationId, name);
        return [
          name,
          doc
            ? {
                ...property,
                description: doc.description,
                ...(doc.example === undefined ? {} : { examples: [doc.example] }),
              }
            : property,
        ];
      }),
    );
    return { ...object, properties };
  };
  return { ...schema, params: documented(schema.params), querystring: documented(schema.querystring) };
}
