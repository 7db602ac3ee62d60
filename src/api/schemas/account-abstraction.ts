import { boolean, type JsonSchema, object, refTo } from "./common.ts";
import { invalidParametersResponse } from "./errors.ts";

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

/** Endpoint 10's component schemas. */
export const accountAbstractionSchemas: Record<string, JsonSchema> = {
  EntryPointIndexerStatus,
  AccountAbstractionStatus,
};

/** The responses of endpoint 10, `/api/v2/proxy/account-abstraction/status`. */
export const accountAbstractionStatusResponses: Record<number, JsonSchema> = {
  200: refTo("AccountAbstractionStatus", "The indexer's state."),
  422: invalidParametersResponse,
};
