import type { FastifyInstance, FastifyRequest } from "fastify";

/** One limit: at most `limit` requests per `intervalMs`, counted in fixed windows. */
export type RateLimitRule = { limit: number; intervalMs: number };

/** Blockscout's API rate limits; each applies only when configured, and none by default. */
export type RateLimitParameters = {
  /** `API_RATE_LIMIT`: one budget shared by every request no other rule takes. */
  global?: RateLimitRule;
  /** `API_RATE_LIMIT_BY_IP`: a budget per client address. */
  byIp?: RateLimitRule;
  /** `API_RATE_LIMIT_STATIC_API_KEY` and `API_RATE_LIMIT_BY_KEY`: requests sending this `apikey`. */
  staticApiKey?: { key: string } & RateLimitRule;
  /** `API_RATE_LIMIT_WHITELISTED_IPS` and `API_RATE_LIMIT_BY_WHITELISTED_IP`: a budget per listed address. */
  whitelisted?: { ips: string[] } & RateLimitRule;
  /** `API_RATE_LIMIT_IS_BLOCKSCOUT_BEHIND_PROXY`: the client address is the first of `x-forwarded-for`. */
  behindProxy?: boolean;
};

type Window = { count: number; resetsAt: number };

/** Windows kept before expired ones are swept, so that many one-off clients cannot grow the map forever. */
const sweepThreshold = 10_000;

/**
 * Limits `/api/v2` requests as Blockscout does: a request sending the static API key is counted against
 * the key's budget, one from a whitelisted address against that address's budget, any other against its
 * address's budget, or against the global budget when no per-address limit is set. Every counted answer
 * carries `x-ratelimit-limit`, `x-ratelimit-remaining` and `x-ratelimit-reset` (milliseconds until the
 * window resets); past the limit the answer is 429 `{"message":"Too Many Requests"}`.
 */
export function registerRateLimit(app: FastifyInstance, parameters: RateLimitParameters): void {
  const { global, byIp, staticApiKey, whitelisted, behindProxy = false } = parameters;
  if (!global && !byIp && !staticApiKey && !whitelisted) return;
  const whitelist = new Set(whitelisted?.ips ?? []);
  const windows = new Map<string, Window>();

  const clientIp = (request: FastifyRequest): string => {
    const forwarded = behindProxy ? request.headers["x-forwarded-for"] : undefined;
    const first = typeof forwarded === "string" ? forwarded.split(",")[0]?.trim() : undefined;
    return first || request.socket.remoteAddress || "";
  };

  const bucketOf = (request: FastifyRequest): { id: string; rule: RateLimitRule } | null => {
    const apikey = (request.query as Record<string, unknown> | undefined)?.apikey;
    if (staticApiKey && apikey === staticApiKey.key) return { id: "key", rule: staticApiKey };
    const ip = clientIp(request);
    if (whitelisted && whitelist.has(ip)) return { id: `whitelisted:${ip}`, rule: whitelisted };
    if (byIp) return { id: `ip:${ip}`, rule: byIp };
    if (global) return { id: "global", rule: global };
    return null;
  };

  const sweep = (now: number) => {
    for (const [id, window] of windows) if (window.resetsAt <= now) windows.delete(id);
  };

  app.addHook("onRequest", async (request, reply) => {
    if (!request.url.startsWith("/api/v2/")) return;
    const bucket = bucketOf(request);
    if (!bucket) return;
    const now = Date.now();
    let window = windows.get(bucket.id);
    if (!window || window.resetsAt <= now) {
      if (windows.size >= sweepThreshold) sweep(now);
      window = { count: 0, resetsAt: now + bucket.rule.intervalMs };
      windows.set(bucket.id, window);
    }
    window.count++;
    reply.header("x-ratelimit-limit", String(bucket.rule.limit));
    reply.header("x-ratelimit-remaining", String(Math.max(0, bucket.rule.limit - window.count)));
    reply.header("x-ratelimit-reset", String(window.resetsAt - now));
    if (window.count > bucket.rule.limit) return reply.status(429).send({ message: "Too Many Requests" });
  });
}
