import { randomUUID } from "node:crypto";
import cors from "@fastify/cors";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from "fastify";
import { loadConfig } from "../config.ts";
import type { Database } from "../db/client.ts";
import { type ChainHead, readChainHead } from "../db/queries/chain-head.ts";
import type { Logger } from "../logger.ts";
import { type AskInterpreter, createInterpreterClient } from "./ask-interpreter.ts";
import { ApiError, invalidParameters } from "./errors.ts";
import { registerOpenApi } from "./openapi.ts";
import { accountAbstractionStatusRoute } from "./routes/account-abstraction-status.ts";
import { addressInternalTransactionsRoute } from "./routes/address-internal-transactions.ts";
import { addressLogsRoute } from "./routes/address-logs.ts";
import { addressNftCollectionsRoute } from "./routes/address-nft-collections.ts";
import { addressTokensRoute } from "./routes/address-tokens.ts";
import { addressTransactionsRoute } from "./routes/address-transactions.ts";
import { docsRoutes } from "./routes/docs.ts";
import { tokenHoldersRoutes } from "./routes/token-holders.ts";
import { tokenTransfersRoutes } from "./routes/token-transfers.ts";
import { transactionSummaryRoute } from "./routes/transaction-summary.ts";
import { withdrawalsRoutes } from "./routes/withdrawals.ts";
import { type ActionProtocols, actionProtocols } from "./transaction-actions.ts";

/** What every route needs: the database, the (briefly cached) indexed head and the configured protocols. */
export type ApiContext = {
  db: Database;
  chainHead: () => Promise<ChainHead>;
  protocols: ActionProtocols;
  askInterpreter?: AskInterpreter;
  /** The native currency's symbol, as summaries name it. */
  nativeSymbol: string;
};

export type CreateApiServerParameters = {
  db: Database;
  logger?: Logger | false;
  /** Protocol contracts whose events become actions; Ethereum mainnet's when absent. */
  protocols?: ActionProtocols;
  /** A Blockscout-compatible interpretation service asked first for transaction summaries. */
  interpreterUrl?: string;
  /** The native currency's symbol (`ETH` when absent). */
  nativeSymbol?: string;
};

/**
 * Creates the HTTP server of the Blockscout-compatible API: every route, Blockscout's error bodies,
 * CORS and request ids. Call `listen` on it, or `inject` in tests.
 */
export async function createApiServer({
  db,
  logger = false,
  protocols = actionProtocols(loadConfig({ env: {} })),
  interpreterUrl,
  nativeSymbol = "ETH",
}: CreateApiServerParameters): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: (logger || undefined) as FastifyBaseLogger | undefined,
    // Per-request lines would dominate the log of a busy explorer; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: "x-request-id",
    genReqId: () => randomUUID(),
    ajv: {
      customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false },
    },
  });
  await app.register(cors, { origin: "*" });
  // Before the routes: the OpenAPI document is collected from each route as it is registered.
  await registerOpenApi(app);
  await docsRoutes(app);
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  app.setErrorHandler((caught: FastifyError | ApiError, request, reply) => {
    const error = "validation" in caught && caught.validation ? invalidParameters(caught.validation) : caught;
    if (error instanceof ApiError) return reply.status(error.statusCode).send(error.body);
    const status = typeof error.statusCode === "number" && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, "request failed");
      return reply.status(500).send({ message: "Internal server error" });
    }
    return reply.status(status).send({ message: error.message });
  });
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith("/api/v2/"))
      return reply.status(400).send({ message: "Unknown API v2 action" });
    return reply.status(404).send({ message: "Not found" });
  });

  const context: ApiContext = {
    db,
    chainHead: cachedChainHead(db),
    protocols,
    askInterpreter: interpreterUrl ? createInterpreterClient({ url: interpreterUrl }) : undefined,
    nativeSymbol,
  };
  addressTransactionsRoute(app, context);
  addressLogsRoute(app, context);
  withdrawalsRoutes(app, context);
  tokenTransfersRoutes(app, context);
  addressInternalTransactionsRoute(app, context);
  addressTokensRoute(app, context);
  tokenHoldersRoutes(app, context);
  addressNftCollectionsRoute(app, context);
  transactionSummaryRoute(app, context);
  accountAbstractionStatusRoute(app, context);
  return app;
}

/** The indexed head changes once a block; reading it once a second is enough for every request. */
function cachedChainHead(db: Database): () => Promise<ChainHead> {
  let cached: { at: number; value: Promise<ChainHead> } | null = null;
  return () => {
    if (!cached || Date.now() - cached.at > 1_000) {
      cached = { at: Date.now(), value: readChainHead(db) };
      cached.value.catch(() => {
        cached = null;
      });
    }
    return cached.value;
  };
}
