/**
 * Resolves once `signal` aborts, at once if it already has: a listener added to an aborted signal is never
 * called, and a stop asked for before the wait began would go unheard.
 */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Return type of {@link anySignal}: the signal, and `dispose` to let go of its sources once it is done with. */
export type AnySignalReturnType = { signal: AbortSignal; dispose(): void };

/**
 * A signal that aborts, with the reason, when the first of `signals` does (those undefined are left out).
 * Unlike `AbortSignal.any`, whose result Node 20 keeps a reference to in each source for as long as the
 * source lives (the process's stop signal gained one per RPC request and per metadata fetch, never freed:
 * some 60 bytes each), it holds on to its sources only until `dispose`.
 *
 * @example
 * const { signal, dispose } = anySignal([stop, AbortSignal.timeout(5_000)]);
 * try {
 *   await fetch(url, { signal });
 * } finally {
 *   dispose();
 * }
 */
export function anySignal(signals: (AbortSignal | undefined)[]): AnySignalReturnType {
  const controller = new AbortController();
  const sources = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const onAbort = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    source.addEventListener("abort", onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const source of sources) source.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Settles as `promise` does, or rejects with `signal`'s reason as soon as it aborts, whichever comes first:
 * for a wait that cannot itself be stopped (a connection that hangs). The promise is left to settle alone.
 */
export function orAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
