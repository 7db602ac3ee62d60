/**
 * A request target as Blockscout's router reads it: never a fragment, and under `/api` no empty path
 * segments, so `//api/v2/token-transfers/?type=ERC-20#top` is `/api/v2/token-transfers?type=ERC-20`. Plug
 * splits a path on `/` and keeps only its non-empty segments, and its HTTP servers drop a fragment; fastify's
 * router would read the fragment as part of the query and refuse the extra slashes. Every hook after it (rate
 * limit, page cache) sees the same target. Outside `/api` the path is kept: the docs page at `/docs/` loads
 * its script by a relative URL. A target not in origin form (`*`, an absolute URL) is left as it came.
 */
export function canonicalUrl(target: string): string {
  if (!target.startsWith("/")) return target;
  const fragment = target.indexOf("#");
  const request = fragment === -1 ? target : target.slice(0, fragment);
  const queryStart = request.indexOf("?");
  const path = queryStart === -1 ? request : request.slice(0, queryStart);
  if (!path.includes("//") && !path.endsWith("/")) return request;
  const segments = path.split("/").filter((segment) => segment !== "");
  if (segments[0] !== "api") return request;
  return `/${segments.join("/")}${queryStart === -1 ? "" : request.slice(queryStart)}`;
}
