import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../support/databases.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { exactCursor, fetchJson, indexDemoChain } from "./demo-chain.ts";
import { caseUrl, type ListCase, listCases } from "./list-cases.ts";

type Replay = "verbatim" | "frontend" | "python" | "partial";

/** A cursor as a client sends it back: verbatim, with null as `null` (frontend) or `` (Python), or partial. */
function replay(cursor: Record<string, unknown>, how: Replay): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const [key, value] of Object.entries(cursor)) {
    if (how === "partial" && key !== "block_number" && key !== "index") continue;
    if (value === null) {
      if (how === "frontend") sent[key] = "null";
      else if (how === "python") sent[key] = "";
    } else sent[key] = String(value);
  }
  return sent;
}

/** Follows the cursors of `entry` to the end; every item of every page, page by page. */
async function walk(chain: IndexedChain, entry: ListCase, how: Replay, limit: number) {
  const pages: unknown[][] = [];
  let cursor: Record<string, unknown> | null = {};
  while (cursor) {
    const page = await fetchJson(chain.app, caseUrl(entry, replay(cursor, how)));
    expect(page.status, page.url).toBe(200);
    const { items } = page.body as { items: unknown[] };
    // A replayed cursor must move on: no item of the previous page again (checked here, before a loop).
    const previous = new Set((pages[pages.length - 1] ?? []).map(entry.key));
    expect(
      items.map(entry.key).filter((key) => previous.has(key)),
      `${page.url} repeats the previous page`,
    ).toEqual([]);
    pages.push(items);
    expect(pages.length, `${entry.path}: more pages than rows`).toBeLessThanOrEqual(limit);
    cursor = exactCursor(page.text);
    if (cursor !== null) expect(items, page.url).toHaveLength(50);
  }
  return pages;
}

describe.each(databaseKinds)("paging on %s", (kind) => {
  let chain: IndexedChain;
  let cases: ListCase[] = [];

  beforeAll(async () => {
    chain = await indexDemoChain(kind);
    cases = await listCases(chain.test.db);
  });
  afterAll(() => chain?.close());

  it("walks lists that span several pages on every endpoint that has that many rows", async () => {
    const multiPage = new Set<number>();
    for (const entry of cases) if ((await entry.expected()).length > 50) multiPage.add(entry.endpoint);
    // Endpoints 1, 9 and 11 have fewer than 51 rows for any address or token of the demo chain.
    expect([...multiPage].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 8, 12, 13]);
  });

  for (const how of ["verbatim", "frontend", "python"] as const) {
    it(`visits every row exactly once, in the contract's order, with cursors sent ${how}`, async () => {
      for (const entry of cases) {
        const expected = await entry.expected();
        const pages = await walk(chain, entry, how, Math.ceil(expected.length / 50) + 1);
        const items = pages.flat();
        const label = caseUrl(entry);
        expect(items.map(entry.order), label).toEqual(expected.map((row) => row.order));
        expect(items.map(entry.key).sort(), label).toEqual(expected.map((row) => row.key).sort());
      }
    });
  }

  it("never repeats an item of the previous page with only block_number and index sent back", async () => {
    for (const entry of cases.filter((candidate) => candidate.blockAndIndex)) {
      const expected = await entry.expected();
      const pages = await walk(chain, entry, "partial", Math.ceil(expected.length / 50) + 1);
      const known = new Set(expected.map((row) => row.key));
      const label = caseUrl(entry);
      for (const key of pages.flat().map(entry.key))
        expect(known.has(key), `${label}: ${key} is not a row`).toBe(true);
      const order = pages.flat().map(entry.order);
      const positions = order.map((value) => expected.findIndex((row) => row.order === value));
      expect(positions, `${label}: out of order`).toEqual([...positions].sort((a, b) => a - b));
    }
  });
});
