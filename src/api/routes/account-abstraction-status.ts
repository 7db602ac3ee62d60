import type { FastifyInstance } from "fastify";
import { readAccountAbstractionStatus } from "../../db/queries/account-abstraction-status.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: { apikey: { type: "string" }, key: { type: "string" } },
} as const;

/**
 * Endpoint 10: the state of ERC-4337 user-operation indexing per entry-point version, as the indexer
 * recorded it in the database (so a separate `sextant serve` reports the indexer's real state).
 */
export function accountAbstractionStatusRoute(app: FastifyInstance, { db }: ApiContext) {
  app.get(
    "/api/v2/proxy/account-abstraction/status",
    { schema: { querystring, ...endpointDocs.accountAbstractionStatus } },
    async () => readAccountAbstractionStatus(db),
  );
}
