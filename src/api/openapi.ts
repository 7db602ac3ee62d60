import { readFileSync } from "node:fs";
import swagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import type { Endpoint } from "./define-endpoint.ts";
import { errorSchemas } from "./schemas/errors.ts";
import { objectSchemas } from "./schemas/objects.ts";

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
 * registered after it (their documented parameters, responses and descriptions), with the shared objects
 * and the `endpoints`' own components, and serves the document at `openApiPath`. Call before registering
 * routes.
 *
 * Responses keep being written with `JSON.stringify`: compiling the response schemas would drop keys
 * they do not list and coerce types, and some routes send JSON text they wrote themselves.
 */
export async function registerOpenApi(app: FastifyInstance, endpoints: readonly Endpoint[]): Promise<void> {
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
        schemas: Object.assign(
          {},
          objectSchemas,
          ...endpoints.map((endpoint) => endpoint.components),
          errorSchemas,
        ) as never,
      },
    },
  });
  app.get(openApiPath, { schema: { hide: true } }, async () => app.swagger());
}
