export type UntilOptions = {
  /** How long to wait before failing; 60 s by default, generous for a loaded 2-core machine. */
  timeoutMs?: number;
  /** The pause between two probes; 100 ms by default. */
  intervalMs?: number;
  /** Ends the wait with this promise's rejection: a process or an indexer that stopped before the probe held. */
  failOn?: Promise<unknown>;
};

type Falsy = false | null | undefined | 0 | "";

/**
 * Polls `probe` until it returns a truthy value and returns that value (a rejection counts as not yet), or
 * fails naming `what` after the timeout (`options` may be the timeout in ms), or with `failOn`'s rejection.
 * `what` may be a function, to describe the state at the time of failure.
 */
export async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T>,
  options: number | UntilOptions = {},
): Promise<Exclude<T, Falsy>> {
  const {
    timeoutMs = 60_000,
    intervalMs = 100,
    failOn,
  } = typeof options === "number" ? { timeoutMs: options } : options;
  let failure: { error: unknown } | undefined;
  failOn?.catch((error) => {
    failure = { error };
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value as Exclude<T, Falsy>;
    if (failure) throw failure.error;
    if (Date.now() > deadline)
      throw new Error(`${typeof what === "string" ? what : what()}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
