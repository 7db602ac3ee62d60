/** Draws of a fixed sequence: a fuzz that fails fails again the same way. */
export type SeededRandom = {
  /** An integer in `[0, n)`. */
  below(n: number): number;
  /** An element of `list`. */
  pick<T>(list: readonly T[]): T;
};

/**
 * A linear congruential sequence from `seed`, modulo 2^32, each draw taken from the state's high bits: its
 * low bits repeat with short periods (the lowest alternates). The product is taken with `Math.imul`: as a
 * double it would pass 2^53 and lose the low bits, which made the sequence repeat within about 10,000 draws
 * and `below(4)` answer 0 almost always.
 */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const below = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return Math.floor((state / 2 ** 32) * n);
  };
  return { below, pick: (list) => list[below(list.length)] as (typeof list)[number] };
}
