import type { FastifyRequest } from "fastify";
import type { ConcurrencyLimit } from "../concurrency-limit.ts";
import type { Database } from "../db/client.ts";
import type { ChainHead } from "../db/queries/chain-head.ts";
import type { AskInterpreter } from "./ask-interpreter.ts";
import type { ActionProtocols } from "./transaction-actions.ts";

/** What every route needs: the database, the (briefly cached) indexed head and the configured protocols. */
export type ApiContext = {
  db: Database;
  /** The indexed head at the data version `request` reads (one read of the version per request). */
  chainHead: (request: FastifyRequest) => Promise<ChainHead>;
  protocols: ActionProtocols;
  askInterpreter?: AskInterpreter;
  /** The native currency's symbol, as summaries name it. */
  nativeSymbol: string;
  /** Gateway of the `ipfs://` media links token instances show. */
  ipfsPublicGateway: string;
  /** The node's latest block as the indexer in this process last saw it; absent without an indexer. */
  nodeHead?: () => bigint | null;
  /** How old the database's newest block may be before health looks at the node's lead. */
  healthyBlocksPeriodMs: number;
  /** Runs an endpoint's work once one of the API's places is free, in arrival order. */
  admit: ConcurrencyLimit;
};
