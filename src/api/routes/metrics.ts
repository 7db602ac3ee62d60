import type { FastifyInstance } from "fastify";
import type { Metrics } from "../../metrics.ts";

/**
 * Serves the process's metrics at `/metrics` in Prometheus' text format and times every API request
 * by route pattern (not by URL, so an address does not become a label value), method and status.
 */
export function metricsRoute(app: FastifyInstance, metrics: Metrics) {
  app.addHook("onResponse", async (request, reply) => {
    metrics.httpDuration.observe(
      {
        route: request.routeOptions.url ?? "unmatched",
        method: request.method,
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}
