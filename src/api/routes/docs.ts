import scalar from "@scalar/fastify-api-reference";
import type { FastifyInstance } from "fastify";
import { openApiPath } from "../openapi.ts";

/** Where the interactive reference is served. */
export const docsPath = "/docs";

/**
 * The interactive API reference (Scalar) at `docsPath`. The plugin serves its own bundled script from
 * `/docs/js/scalar.js`; the configuration turns off everything that would reach the network (fonts from
 * Scalar's CDN, telemetry, the request proxy, the MCP and agent features), so the page works offline and
 * "try it" sends its requests to this instance directly.
 */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(scalar, {
    routePrefix: docsPath,
    logLevel: "silent",
    configuration: {
      url: openApiPath,
      pageTitle: "Sextant API",
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: "never",
      mcp: { disabled: true },
      agent: { disabled: true },
      documentDownloadType: "json",
      operationTitleSource: "summary",
      defaultOpenAllTags: true,
    },
  });
}
