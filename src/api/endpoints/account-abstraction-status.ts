import { readAccountAbstractionStatus } from "../../db/queries/account-abstraction-status.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { apiKeys } from "../params.ts";
import { boolean, object, refTo } from "../schemas/common.ts";
import { commonErrorResponses, invalidParametersResponse } from "../schemas/errors.ts";

const EntryPointIndexerStatus = object(
  {
    enabled: boolean("User operations of this entry-point version are indexed (configuration)."),
    live: boolean("The indexer follows the head for this version."),
    past_db_logs_indexing_finished: boolean("Logs already stored have been scanned."),
    past_rpc_logs_indexing_finished: boolean("Catch-up from the node reached the head."),
  },
  {
    description:
      "Indexing state of one ERC-4337 entry-point version (user-ops-indexer's v1EntryPointIndexerStatus).",
  },
);

const AccountAbstractionStatus = object(
  {
    finished_past_indexing: boolean(
      "Every version is either not enabled or has both past-indexing flags true.",
    ),
    v06: refTo("EntryPointIndexerStatus", "EntryPoint v0.6."),
    v07: refTo("EntryPointIndexerStatus", "EntryPoint v0.7."),
    v07_v08: refTo(
      "EntryPointIndexerStatus",
      "EntryPoint v0.7 and v0.8 together (current Blockscout's key).",
    ),
  },
  { description: "State of the ERC-4337 user-operation indexer." },
);

/**
 * Endpoint 10: the state of ERC-4337 user-operation indexing per entry-point version, as the indexer
 * recorded it in the database (so a separate `sextant serve` reports the indexer's real state).
 */
export const accountAbstractionStatus = defineEndpoint({
  number: 10,
  method: "GET",
  path: "/api/v2/proxy/account-abstraction/status",
  schema: {
    operationId: "accountAbstractionStatus",
    summary: "ERC-4337 indexer status",
    description:
      "Indexing state of user operations per entry-point version; the flags are the real state of Sextant's ERC-4337 indexing.",
    tags: ["account abstraction"],
    querystring: { type: "object", additionalProperties: false, properties: apiKeys },
    response: {
      200: refTo("AccountAbstractionStatus", "The indexer's state."),
      422: invalidParametersResponse,
      ...commonErrorResponses,
    },
  },
  components: { EntryPointIndexerStatus, AccountAbstractionStatus },
  // `live` is a heartbeat that ages with the clock, not only with writes.
  cacheable: () => false,
  handler: async ({ db }) => readAccountAbstractionStatus(db),
});
