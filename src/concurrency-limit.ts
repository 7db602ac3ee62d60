import type { Gauge } from "prom-client";

/** Runs `work` once one of the places is free; waiting work takes a place in the order it came. */
export type ConcurrencyLimit = <Result>(work: () => Promise<Result>) => Promise<Result>;

export type CreateConcurrencyLimitParameters = {
  /** How many pieces of work run at once; 0 for no limit. */
  places: number;
  /** Set to the number of pieces of work waiting for a place. */
  waiting?: Gauge;
};

export type CreateConcurrencyLimitReturnType = ConcurrencyLimit;

/**
 * Bounds how many pieces of work run at once, first come first served: a freed place passes straight to
 * the oldest waiting piece, so none that arrives later can take it first. Shared by the JSON-RPC client
 * (requests to the node) and the API (requests computed at once).
 */
export function createConcurrencyLimit({
  places,
  waiting,
}: CreateConcurrencyLimitParameters): CreateConcurrencyLimitReturnType {
  if (places === 0) return (work) => work();
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    const next = queue.shift();
    waiting?.set(queue.length);
    // The place passes to the next piece as it is: `running` stays the same.
    if (next) next();
    else running--;
  };
  return async (work) => {
    if (running < places) running++;
    else {
      await new Promise<void>((resolve) => {
        queue.push(resolve);
        waiting?.set(queue.length);
      });
    }
    try {
      return await work();
    } finally {
      release();
    }
  };
}
