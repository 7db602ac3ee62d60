import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Counter } from "prom-client";

export type RegisterPageCacheParameters = {
  app: FastifyInstance;
  /** The version of the data a request reads; a page is served from the cache only at its own version. */
  dataVersion: (request: FastifyRequest) => Promise<string>;
  /** The route patterns (as registered) whose answers depend on the database alone. */
  routes: ReadonlySet<string>;
  /** The most bytes kept: serialized pages, their URLs and 1 KiB each; 0 keeps none (answers still get an `ETag`). */
  maxBytes: number;
  /** Counts answers by `result`: `hit`, `miss` or `not_modified`. */
  lookups?: Counter<"result">;
};

type Page = { body: Buffer; etag: string; contentType: string };

/**
 * What a kept page costs besides its URL and body: its entry, object, `ETag` and buffer (measured: about
 * 600 bytes of heap and 270 of buffers for a small page). Counted with the URL, so that pages under URLs
 * padded with ignored parameters cannot hold more memory than the limit.
 */
const entryOverheadBytes = 1_024;

/** The bytes a page of `bodyBytes` kept under `url` counts against the cache's limit. */
export function keptPageBytes(url: string, bodyBytes: number): number {
  return url.length + bodyBytes + entryOverheadBytes;
}
const pageBytes = (url: string, page: Page) => keptPageBytes(url, page.body.length);

/**
 * Serves the pages of `routes` from memory while the data they were computed from is unchanged, and gives
 * each an `ETag` (a hash of its body) that a client's `If-None-Match` turns into a 304.
 *
 * A page is kept with a data version (`data_version`) whose read ended before the page was computed, and
 * served only to requests that read the same version afterwards, so a cached answer is always the answer
 * the request would have computed: any write (a new block, a reorganization, fetched metadata) changes the
 * version and empties the cache. Only 200 answers to GET are kept, least recently used first out.
 *
 * A request whose page is not kept misses whatever the version, so its page is computed at once, beside the
 * version's read rather than after it: the version known when the request came is the one it may be kept
 * with, and only if the read shows it unchanged. A page that misses after a write is kept from its next
 * request on.
 */
export function registerPageCache({
  app,
  dataVersion,
  routes,
  maxBytes,
  lookups,
}: RegisterPageCacheParameters): void {
  const pages = new Map<string, Page>();
  let pagesVersion = "";
  let pagesBytes = 0;
  // Requests in order of arrival: a later request's version read starts no earlier (see createDataVersion).
  let arrivals = 0;
  let pagesArrival = 0;
  /** A computed page's request: the version its page may be kept with, null if none. */
  const computing = new WeakMap<FastifyRequest, Promise<string | null>>();
  const settle = (version: string, arrival: number) => {
    if (version === pagesVersion || arrival < pagesArrival) return;
    pages.clear();
    pagesBytes = 0;
    pagesVersion = version;
    pagesArrival = arrival;
  };

  const keep = (url: string, page: Page) => {
    if (pageBytes(url, page) > maxBytes) return;
    const replaced = pages.get(url);
    if (replaced) pagesBytes -= pageBytes(url, replaced);
    pages.delete(url);
    pages.set(url, page);
    pagesBytes += pageBytes(url, page);
    for (const [oldest, evicted] of pages) {
      if (pagesBytes <= maxBytes) break;
      pages.delete(oldest);
      pagesBytes -= pageBytes(oldest, evicted);
    }
  };

  app.addHook("onRequest", async (request, reply) => {
    if (request.method !== "GET" || !routes.has(request.routeOptions.url ?? "")) return;
    if (maxBytes === 0) {
      computing.set(request, Promise.resolve(null));
      return;
    }
    const arrival = ++arrivals;
    if (!pages.has(request.url)) {
      // Its read ended before this page began: the page may be kept with it if the request's own read, beside
      // the page, shows it unchanged. Failures are the handler's to answer: its statements read the same
      // database.
      const known = pagesVersion;
      const keepAs = dataVersion(request).then(
        (version) => {
          settle(version, arrival);
          return version === known ? version : null;
        },
        () => null,
      );
      computing.set(request, keepAs);
      lookups?.inc({ result: "miss" });
      return;
    }
    const version = await dataVersion(request);
    settle(version, arrival);
    const page = version === pagesVersion ? pages.get(request.url) : undefined;
    if (!page) {
      computing.set(request, Promise.resolve(version));
      lookups?.inc({ result: "miss" });
      return;
    }
    // Most recently used last: the oldest is the first to go.
    pages.delete(request.url);
    pages.set(request.url, page);
    reply.header("etag", page.etag);
    if (matches(request.headers["if-none-match"], page.etag)) {
      lookups?.inc({ result: "not_modified" });
      return reply.code(304).send();
    }
    lookups?.inc({ result: "hit" });
    return reply.header("content-type", page.contentType).send(page.body);
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const computed = computing.get(request);
    if (computed === undefined || reply.statusCode !== 200 || typeof payload !== "string") return payload;
    const body = Buffer.from(payload);
    const etag = `"${createHash("sha1").update(body).digest("base64url")}"`;
    reply.header("etag", etag);
    // Kept only at a version that is still the cache's: a page computed at a version the cache has left
    // behind is still this request's answer, not a later one's.
    const keepAs = await computed;
    if (keepAs !== null && keepAs === pagesVersion)
      keep(request.url, { body, etag, contentType: String(reply.getHeader("content-type")) });
    if (matches(request.headers["if-none-match"], etag)) {
      reply.code(304);
      return "";
    }
    return body;
  });
}

/** Whether an `If-None-Match` header names `etag` (or is `*`); weak tags compare by their value. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => {
    const trimmed = tag.trim();
    return trimmed === "*" || trimmed === etag || trimmed === `W/${etag}`;
  });
}
