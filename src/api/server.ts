import { randomUUID } from "node:crypto";
import cors from "@fastify/cors";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  LogController,
} from "fastify";
import { createConcurrencyLimit } from "../concurrency-limit.ts";
import { loadConfig } from "../config.ts";
import type { Database } from "../db/client.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { defaultIpfsGateway } from "../indexer/fetch-token-metadata.ts";
import type { Logger } from "../logger.ts";
import { type Metrics, observeQueries } from "../metrics.ts";
import { createInterpreterClient } from "./ask-interpreter.ts";
import { canonicalUrl } from "./canonical-url.ts";
import type { ApiContext } from "./context.ts";
import { endpoints } from "./endpoints/index.ts";
import { ApiError, invalidParameters } from "./errors.ts";
import { registerOpenApi } from "./openapi.ts";
import { registerPageCache } from "./page-cache.ts";
import { type RateLimitParameters, registerRateLimit } from "./rate-limit.ts";
import { routeReads } from "./read-routing.ts";
import { docsRoutes } from "./routes/docs.ts";
import { healthRoutes } from "./routes/health.ts";
import { metricsRoute } from "./routes/metrics.ts";
import { tokenTypeListFormat } from "./token-types.ts";
import { type ActionProtocols, actionProtocols } from "./transaction-actions.ts";

/**
 * Longer than any valid path parameter, so that a too long one gets the contract's 422; past it, 414, as
 * Blockscout's server answers a request line of 8,000 bytes or more.
 */
const maxParamLength = 8_000;
/** A client's `x-request-id` is kept only when it is short and plain; otherwise one is generated. */
const plainRequestId = /^[A-Za-z0-9._:-]{1,64}$/;

export type CreateApiServerParameters = {
  db: Database;
  logger?: Logger | false;
  /** Protocol contracts whose events become actions; Ethereum mainnet's when absent. */
  protocols?: ActionProtocols;
  /** A Blockscout-compatible interpretation service asked first for transaction summaries. */
  interpreterUrl?: string;
  /** The native currency's symbol (`ETH` when absent). */
  nativeSymbol?: string;
  /**
   * Gateway of the `ipfs://` media links token instances show (Blockscout's `IPFS_PUBLIC_GATEWAY_URL`):
   * ipfs.io's when absent.
   */
  ipfsPublicGateway?: string;
  /** Metrics to record requests in and serve at `/metrics`; none when absent. */
  metrics?: Metrics;
  /** The node's latest block as this process's indexer last saw it, for `/api/health`. */
  nodeHead?: () => bigint | null;
  /** Blockscout's `HEALTHY_BLOCKS_PERIOD`: 5 minutes when absent. */
  healthyBlocksPeriodMs?: number;
  /** Longest time a client may take to send a whole request (10 s when absent). */
  requestTimeoutMs?: number;
  /** Blockscout's API rate limits; none when absent. */
  rateLimits?: RateLimitParameters;
  /** A streaming replica of `db` that reads go to while it lags at most `replicaMaxLagMs`. */
  replica?: Database;
  /** Blockscout's `REPLICA_MAX_LAG`: 5 minutes when absent. */
  replicaMaxLagMs?: number;
  /** The most bytes of serialized pages served again while the data is unchanged: 64 MiB when absent, 0 for none. */
  pageCacheBytes?: number;
  /** How many API requests are computed at once, the others waiting in arrival order: 16 when absent, 0 for no limit. */
  concurrency?: number;
};

/**
 * Creates the HTTP server of the Blockscout-compatible API: every endpoint of `endpoints/`, health, metrics
 * and docs, Blockscout's error bodies, CORS and request ids. Call `listen` on it, or `inject` in tests.
 */
export async function createApiServer({
  db,
  logger = false,
  protocols = actionProtocols(loadConfig({ env: {} })),
  interpreterUrl,
  nativeSymbol = "ETH",
  ipfsPublicGateway = defaultIpfsGateway,
  metrics,
  nodeHead,
  healthyBlocksPeriodMs = 5 * 60_000,
  requestTimeoutMs = 10_000,
  rateLimits = {},
  replica,
  replicaMaxLagMs = 5 * 60_000,
  pageCacheBytes = 64 * 1024 * 1024,
  concurrency = 16,
}: CreateApiServerParameters): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: (logger || undefined) as FastifyBaseLogger | undefined,
    // Per-request lines would dominate the log of a busy explorer; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (request) => {
      const sent = request.headers["x-request-id"];
      return typeof sent === "string" && plainRequestId.test(sent) ? sent : randomUUID();
    },
    // An API request has no body to wait for: a client slower than this only holds a socket. Node checks
    // the deadlines every connectionsCheckingInterval (30 s by default), so the check runs more often.
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs),
      // Refused below instead, in the contract's shape: Node's check answers with an empty body.
      requireHostHeader: false,
    },
    routerOptions: { maxParamLength, querystringParser: parseQueryString },
    rewriteUrl: (request) => canonicalUrl(request.url ?? "/"),
    // Answers that Node's HTTP parser and fastify's router give before any route runs, in the contract's shape.
    clientErrorHandler: answerClientError,
    // They skip the hooks, which set these headers on every other answer.
    frameworkErrors: (error, request, reply) => {
      const tooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
      (reply as FastifyReply)
        .code(tooLong ? 414 : 400)
        .header("access-control-allow-origin", "*")
        .header("x-request-id", request.id)
        .send({ message: tooLong ? "URI too long" : "Malformed URL" });
    },
    ajv: {
      customOptions: {
        allErrors: true,
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        formats: { [tokenTypeListFormat.name]: tokenTypeListFormat.test },
      },
    },
  });
  // HTTP/1.1 refuses a request without `Host` (RFC 9112): before CORS answers a preflight and before the rate
  // limit counts it, so its CORS header is set here.
  app.addHook("onRequest", async (request, reply) => {
    const { httpVersion } = request.raw;
    if (httpVersion === "1.1" && request.headers.host === undefined)
      return reply
        .code(400)
        .header("access-control-allow-origin", "*")
        .header("connection", "close")
        .send({ message: "Bad Request" });
  });
  // Not strict: a bare OPTIONS (no Origin or requested method) is answered like a preflight, not with a 400.
  await app.register(cors, { origin: "*", methods: ["GET", "HEAD"], strictPreflight: false });
  // A read-only API reads no body: whatever a request carries, its answer is the one its path and method
  // get (a malformed JSON body on an unknown action is still an unknown action).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, _payload, done) => done(null));
  // After CORS, so that a browser can read a 429 too.
  registerRateLimit(app, rateLimits);
  // Before the routes: the OpenAPI document is collected from each route as it is registered.
  await registerOpenApi(app, endpoints);
  await docsRoutes(app);
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  app.setErrorHandler((caught: FastifyError | ApiError, request, reply) => {
    const error = "validation" in caught && caught.validation ? invalidParameters(caught.validation) : caught;
    if (error instanceof ApiError) return reply.status(error.statusCode).send(error.body);
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, "database unavailable");
      return reply
        .status(503)
        .header("retry-after", "5")
        .send({ message: "Database unavailable, try again shortly" });
    }
    const status = typeof error.statusCode === "number" && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, "request failed");
      return reply.status(500).send({ message: "Internal server error" });
    }
    return reply.status(status).send({ message: error.message });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?", 1)[0];
    if (path === "/api/v2" || path?.startsWith("/api/v2/"))
      return reply.status(400).send({ message: "Unknown API v2 action" });
    return reply.status(404).send({ message: "Not found" });
  });

  const observe = (target: Database) =>
    metrics ? observeQueries(target, metrics.databaseQueriesInFlight) : target;
  const reads = routeReads({
    app,
    primary: observe(db),
    replica: replica && observe(replica),
    maxLagMs: replicaMaxLagMs,
    logger,
  });
  const context: ApiContext = {
    db: reads.db,
    chainHead: reads.chainHead,
    protocols,
    askInterpreter: interpreterUrl ? createInterpreterClient({ url: interpreterUrl }) : undefined,
    nativeSymbol,
    ipfsPublicGateway,
    nodeHead,
    healthyBlocksPeriodMs,
    // Unbounded, every request under load interleaves its statements and rendering with all the others and
    // queues for the database's connections at each round of statements; admitted a few at a time, a
    // request waits once, in order: a tail that stays put when the machine is slower, for about a tenth of
    // the throughput at saturation (docs/performance.md, "A third machine at 10 M").
    admit: createConcurrencyLimit({ places: concurrency, waiting: metrics?.apiRequestsWaiting }),
  };
  registerPageCache({
    app,
    dataVersion: reads.dataVersion,
    routes: new Set(
      endpoints.filter((endpoint) => endpoint.cacheable?.(context) ?? true).map((endpoint) => endpoint.path),
    ),
    maxBytes: pageCacheBytes,
    lookups: metrics?.pageCacheLookups,
  });
  if (metrics) metricsRoute(app, metrics);
  healthRoutes(app, context);
  for (const endpoint of endpoints) endpoint.register(app, context);
  return app;
}

/**
 * A query string as Blockscout (Plug) reads it: a key given more than once keeps its last value, where
 * fastify would make a list of them that no parameter's schema takes.
 */
function parseQueryString(text: string): Record<string, string> {
  const query: Record<string, string> = Object.create(null);
  for (const [key, value] of new URLSearchParams(text)) query[key] = value;
  return query;
}

const statusTexts: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
};

/**
 * Answers what Node's HTTP parser rejects (malformed requests, oversized headers, requests slower than
 * the timeout) with `{"message"}` like every other error, then closes the connection.
 */
function answerClientError(error: Error & { code?: string }, socket: import("node:net").Socket): void {
  const status =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? 408
      : error.code === "HPE_HEADER_OVERFLOW"
        ? 431
        : error.code === "HPE_CHUNK_EXTENSIONS_OVERFLOW"
          ? 413
          : 400;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ message: statusTexts[status] });
  socket.end(
    `HTTP/1.1 ${status} ${statusTexts[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `access-control-allow-origin: *\r\nx-request-id: ${randomUUID()}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
