import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../support/databases.ts";
import { at } from "../support/elements.ts";
import { endpointNamed, listEndpoints } from "../support/endpoints.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { exactCursor, fetchJson, indexDemoChain } from "./demo-chain.ts";
import { caseUrl, type ListCase, listCases } from "./list-cases.ts";
import { ownDocumentValidator } from "./openapi-validators.ts";

type Replay = "verbatim" | "frontend" | "python" | "partial" | "without value";

/** The lists whose cursor carries `value` as a JSON number, which may exceed what a double holds exactly. */
const numberValueCursors = ["addressTokens", "tokenHolders", "tokenInstanceHolders"].map(endpointNamed);

/**
 * A page's cursor as a client sends it back:
 * - `verbatim`: every key with its exact digits, null keys left out;
 * - `frontend`: as Blockscout's frontend does, `String()` of each value of `JSON.parse(text)`: a number
 *   above 2^53 comes back rounded (`1152921504606847000`), one of 1e21 or more in exponent form
 *   (`4.994e+21`), null as `null`;
 * - `python`: exact digits (Python's `json` keeps big integers), null as an empty string;
 * - `partial`: only `block_number` and `index`;
 * - `without value`: every key but `value`, with exact digits.
 */
function replay(text: string, how: Replay): Record<string, string> | null {
  const cursor =
    how === "frontend"
      ? (JSON.parse(text) as { next_page_params: Record<string, unknown> | null }).next_page_params
      : exactCursor(text);
  if (cursor === null) return null;
  const sent: Record<string, string> = {};
  for (const [key, value] of Object.entries(cursor)) {
    if (how === "partial" && key !== "block_number" && key !== "index") continue;
    if (how === "without value" && key === "value") continue;
    if (value === null) {
      if (how === "frontend") sent[key] = "null";
      else if (how === "python") sent[key] = "";
    } else sent[key] = String(value);
  }
  return sent;
}

/** Every page of `entry`, following the cursors sent back `how`, with the cursor text each page ended with. */
async function walk(chain: IndexedChain, entry: ListCase, how: Replay, limit: number) {
  const pages: unknown[][] = [];
  const cursorTexts: string[] = [];
  let sent: Record<string, string> | null = {};
  while (sent) {
    const page = await fetchJson(chain.app, caseUrl(entry, sent));
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
    sent = replay(page.text, how);
    if (sent !== null) {
      expect(items, page.url).toHaveLength(50);
      cursorTexts.push(page.text);
    }
  }
  return { pages, cursorTexts };
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
    const multiPage = new Set<string>();
    for (const entry of cases)
      if ((await entry.expected()).length > 50) multiPage.add(entry.endpoint.schema.operationId);
    // Endpoint 11 has fewer than 51 collections for any address of the demo chain.
    const fewRows = endpointNamed("addressNftCollections");
    expect([...multiPage].sort()).toEqual(
      listEndpoints
        .filter((endpoint) => endpoint !== fewRows)
        .map((endpoint) => endpoint.schema.operationId)
        .sort(),
    );
  });

  for (const how of ["verbatim", "frontend", "python"] as const) {
    it(`visits every row exactly once, in the contract's order, with cursors sent ${how}`, async () => {
      for (const entry of cases) {
        const expected = await entry.expected();
        const { pages } = await walk(chain, entry, how, Math.ceil(expected.length / 50) + 1);
        const items = pages.flat();
        const label = caseUrl(entry);
        expect(items.map(entry.order), label).toEqual(expected.map((row) => row.order));
        expect(items.map(entry.key).sort(), label).toEqual(expected.map((row) => row.key).sort());
      }
    });
  }

  it("has page boundaries on endpoints 1, 6 and 9 where the frontend sends back another value than the row's", async () => {
    // Without them the frontend walk above would prove nothing about rounded cursors.
    const rounded = new Map<string, number>();
    let sameDoubleNeighbours = 0;
    for (const entry of cases.filter((candidate) => numberValueCursors.includes(candidate.endpoint))) {
      const expected = await entry.expected();
      const { pages, cursorTexts } = await walk(
        chain,
        entry,
        "verbatim",
        Math.ceil(expected.length / 50) + 1,
      );
      cursorTexts.forEach((text, index) => {
        const exact = String(exactCursor(text)?.value);
        const parsed = (JSON.parse(text) as { next_page_params: { value: number } }).next_page_params.value;
        const name = entry.endpoint.schema.operationId;
        if (String(parsed) !== exact) rounded.set(name, (rounded.get(name) ?? 0) + 1);
        // The case: the last row of a page and the first of the next differ, yet print the same.
        const last = (at(at(pages, index), -1) as { value: string }).value;
        const next = (at(at(pages, index + 1), 0) as { value: string }).value;
        if (last !== next && Number(last) === Number(next)) sameDoubleNeighbours++;
      });
    }
    expect([...rounded.keys()].sort()).toEqual(
      numberValueCursors.map((endpoint) => endpoint.schema.operationId).sort(),
    );
    expect(sameDoubleNeighbours).toBeGreaterThan(0);
  });

  it("never repeats an item of the previous page with only block_number and index sent back", async () => {
    for (const entry of cases.filter((candidate) => candidate.blockAndIndex)) {
      const expected = await entry.expected();
      const { pages } = await walk(chain, entry, "partial", Math.ceil(expected.length / 50) + 1);
      const known = new Set(expected.map((row) => row.key));
      const label = caseUrl(entry);
      for (const key of pages.flat().map(entry.key))
        expect(known.has(key), `${label}: ${key} is not a row`).toBe(true);
      const order = pages.flat().map(entry.order);
      const positions = order.map((value) => expected.findIndex((row) => row.order === value));
      expect(positions, `${label}: out of order`).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  it("answers a real cursor garbled as a client might with a page or the contract's 422, never a 5xx", async () => {
    const { below, pick } = seededRandom(7);
    const firstCursors = await Promise.all(
      cases.map(async (entry) => replay((await fetchJson(chain.app, caseUrl(entry))).text, "verbatim") ?? {}),
    );
    const realValues = firstCursors.flatMap(Object.values);
    const realKeys = [...new Set(firstCursors.flatMap(Object.keys))];
    const odd = [
      "",
      "null",
      "-1",
      "-0",
      "1.5",
      "1e3",
      "4.994e+21",
      "0x",
      `0x${"ff".repeat(32)}`,
      "true",
      "[]",
      "NaN",
    ];
    const bounds = [2n ** 31n, 2n ** 53n, 2n ** 63n, 10n ** 78n].flatMap((bound) => [
      bound - 1n,
      bound,
      -bound,
    ]);
    const served = await fetchJson(chain.app, "/api/v2/openapi.json");
    const validate = ownDocumentValidator(served.body as Parameters<typeof ownDocumentValidator>[0]);
    const statuses = new Map<number, number>();
    const boundsSent = new Set<bigint>();
    for (const [c, entry] of cases.entries()) {
      for (let i = 0; i < 40; i++) {
        const sent = { ...firstCursors[c] };
        const changes = 1 + below(3);
        for (let change = 0; change < changes; change++) {
          const keys = Object.keys(sent);
          const key = keys.length > 0 && below(4) > 0 ? pick(keys) : pick(realKeys);
          const value = sent[key];
          const draw = below(5);
          if (draw === 0) delete sent[key];
          else if (draw === 1) sent[key] = pick(realValues);
          else if (draw === 2 && value !== undefined && /^-?[0-9]+$/.test(value))
            sent[key] = String(BigInt(value) + BigInt(below(3) - 1));
          else if (draw === 3) {
            const bound = pick(bounds);
            boundsSent.add(bound);
            sent[key] = String(bound);
          } else sent[key] = pick(odd);
        }
        const page = await fetchJson(chain.app, caseUrl(entry, sent));
        statuses.set(page.status, (statuses.get(page.status) ?? 0) + 1);
        expect([200, 422], page.url).toContain(page.status);
        expect(validate(page.url, page.status, page.body), page.url).toEqual([]);
      }
    }
    // Both answers drawn, so the garbling reached the queries and the validation alike, and every bound sent.
    expect([...statuses.keys()].sort()).toEqual([200, 422]);
    expect(boundsSent.size).toBe(bounds.length);
  });

  it("resumes after the row a cursor of endpoints 1, 6 and 9 names when its value is left out", async () => {
    // The cursor's other keys name the last row (its token, id and holder): its stored value says where the
    // page ended. Starting over instead would repeat the previous page, page after page.
    for (const entry of cases.filter((candidate) => numberValueCursors.includes(candidate.endpoint))) {
      const expected = await entry.expected();
      const { pages } = await walk(chain, entry, "without value", Math.ceil(expected.length / 50) + 1);
      const items = pages.flat();
      const label = caseUrl(entry);
      expect(items.map(entry.order), label).toEqual(expected.map((row) => row.order));
      expect(items.map(entry.key).sort(), label).toEqual(expected.map((row) => row.key).sort());
    }
  });
});
