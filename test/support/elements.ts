/**
 * Reads of an element the test needs: each fails naming what was missing, where an index or a key read
 * (undefined under noUncheckedIndexedAccess) would fail later with a TypeError, or not at all.
 */

/**
 * The element of `items` at `index` (counted from the end when negative), or a failure naming `what`
 * when `items` has no such element.
 */
export function at<T>(items: readonly T[], index: number, what = "list"): T {
  const position = index < 0 ? items.length + index : index;
  if (position < 0 || position >= items.length)
    throw new Error(`${what}: no element at ${index}, it has ${items.length}`);
  return items[position] as T;
}

/** The one element of `items`, or a failure naming `what` when it has none or more than one. */
export function only<T>(items: readonly T[], what = "list"): T {
  if (items.length !== 1) throw new Error(`${what}: ${items.length} elements where one was expected`);
  return items[0] as T;
}
