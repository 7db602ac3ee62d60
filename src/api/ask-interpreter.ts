/** Asks for a transaction's summary; null when the service has no usable answer. */
export type AskInterpreter = (transactionHash: string) => Promise<unknown | null>;

export type CreateInterpreterClientParameters = {
  /** Base URL of a service that answers `GET /api/v2/transactions/{hash}/summary` as Blockscout does. */
  url: string;
  timeoutMs?: number;
};

/**
 * Asks a Blockscout-compatible interpretation service for a transaction's summary. Any failure (down,
 * slow, not 200, not a summary) answers null, so that the built-in interpreter answers instead.
 */
export function createInterpreterClient({
  url,
  timeoutMs = 3_000,
}: CreateInterpreterClientParameters): AskInterpreter {
  const base = url.replace(/\/+$/, "");
  return async (transactionHash) => {
    try {
      const response = await fetch(`${base}/api/v2/transactions/${transactionHash}/summary`, {
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: "application/json" },
      });
      if (response.status !== 200) return null;
      const body = (await response.json()) as { success?: unknown; data?: { summaries?: unknown } } | null;
      return body?.success === true && Array.isArray(body.data?.summaries) ? body : null;
    } catch {
      return null;
    }
  };
}
