import type { Gauge } from "prom-client";

/** Runs `work` once one of the places is free; the places are taken in the order requests arrived. */
export type Admission = <Result>(work: () => Promise<Result>) => Promise<Result>;

export type CreateAdmissionParameters = {
  /** How many pieces of work run at once; 0 for no limit. */
  places: number;
  /** Set to the number of pieces of work waiting for a place. */
  waiting?: Gauge;
};

export type CreateAdmissionReturnType = Admission;

/**
 * Bounds how many API requests are computed at once, first come first served. Unbounded, every request
 * under load interleaves its statements and rendering with all the others, and queues for the database's
 * connections once per round of statements; admitted a few at a time, a request waits once, in order, and
 * then runs with little to share: a tail that stays put when the machine is slower, for about a tenth of
 * the throughput at saturation (docs/performance.md, "A third machine at 10 M").
 */
export function createAdmission({ places, waiting }: CreateAdmissionParameters): CreateAdmissionReturnType {
  if (places === 0) return (work) => work();
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    const next = queue.shift();
    waiting?.set(queue.length);
    // The place passes to the next request as it is: `running` stays the same.
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
