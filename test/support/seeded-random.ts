/** Draws of a fixed sequence: a fuzz that fails fails again the same way. */
export type SeededRandom = {
  /** An integer in `[0, n)`. */
  below(n: number): number;
  /** An element of `list`. */
  pick<T>(list: readonly T[]): T;
};

/** A linear congruential sequence from `seed`: reproducible, not random enough for anything but tests. */
export function seededRandom(seed: number): SeededRandom {
  let state = seed;
  const below = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  return { below, pick: (list) => list[below(list.length)] as (typeof list)[number] };
}
