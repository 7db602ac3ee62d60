import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../support/databases.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { exactCursor, type Fetched, fetchJson, indexDemoChain } from "./demo-chain.ts";
import { DocumentChecker, readInterfaceDocument, type Violation } from "./interface-document.ts";
import { caseUrl, type ListCase, listCases } from "./list-cases.ts";
import { blockscoutValidator, ownDocumentValidator, type ResponseValidator } from "./openapi-validators.ts";
import {
  missingRecordedKeys,
  type RecordedShapes,
  readRecordings,
  recordedItemShapes,
} from "./recorded-shapes.ts";

/** Pages fetched per request variant: the first, one in the middle and the last. */
async function pagesOf(chain: IndexedChain, entry: ListCase): Promise<Fetched[]> {
  const pages: Fetched[] = [];
  let cursor: Record<string, unknown> | null = {};
  while (cursor) {
    const page = await fetchJson(chain.app, caseUrl(entry, cursor as Record<string, string>));
    pages.push(page);
    if (page.status !== 200 || pages.length > 40) break;
    cursor = exactCursor(page.text);
  }
  return pages.length > 3 ? [pages[0], pages[Math.floor(pages.length / 2)], pages[pages.length - 1]] : pages;
}

/**
 * Recordings per endpoint: those of the same path, and those of Blockscout paths that render the same
 * view (the transaction list, the internal transactions of a transaction, a token's transfers).
 */
const recordedPaths: Record<number, RegExp> = {
  1: /^\/api\/v2\/addresses\/[^/]+\/tokens$/,
  2: /^\/api\/v2\/(addresses\/[^/]+\/)?transactions$/,
  3: /^\/api\/v2\/addresses\/[^/]+\/logs$/,
  6: /^\/api\/v2\/tokens\/[^/]+\/holders$/,
  8: /^\/api\/v2\/(token-transfers|tokens\/[^/]+\/transfers|addresses\/[^/]+\/token-transfers)$/,
  9: /^\/api\/v2\/tokens\/[^/]+\/instances\/[^/]+\/holders$/,
  11: /^\/api\/v2\/addresses\/[^/]+\/nft\/collections$/,
  12: /^\/api\/v2\/(addresses|transactions)\/[^/]+\/internal-transactions$/,
  13: /^\/api\/v2\/(token-transfers|tokens\/[^/]+\/transfers|addresses\/[^/]+\/token-transfers)$/,
};

/** The recorded item shapes of each endpoint that has recordings. */
function recordedShapesByEndpoint(): Map<number, RecordedShapes> {
  const recordings = readRecordings();
  const shapes = new Map<number, RecordedShapes>();
  for (const [endpoint, pattern] of Object.entries(recordedPaths)) {
    const matching = recordings.filter((recording) => pattern.test(recording.path));
    if (matching.length === 0) throw new Error(`no recording matches endpoint ${endpoint}`);
    shapes.set(Number(endpoint), recordedItemShapes(matching));
  }
  return shapes;
}

/** Problems without item positions or values, each once: one line per kind of fault. */
function distinct(problems: string[]): string[] {
  return [
    ...new Set(
      problems.map((problem) =>
        problem
          .replace(/\/items\/\d+|items\[\d+\]/g, "/items/*")
          .replace(/\[\d+\]|\/\d+\//g, "/*/")
          .replace(/, got .*$/, ""),
      ),
    ),
  ].sort();
}

const document = new DocumentChecker(readInterfaceDocument());

/** What the interface document's tables find wrong with one list page of `endpoint`. */
function documentViolations(endpoint: number, body: { items: unknown[]; next_page_params: unknown }) {
  const found: Violation[] = [];
  const described = document.document.bodies.get(endpoint);
  if (!described) throw new Error(`the interface document has no endpoint ${endpoint}`);
  body.items.forEach((item, i) => {
    const violations = document.checkObject(described.object, item, {
      where: endpoint === 11 ? "NFT collection listing" : "",
      holdersCountAsInteger: endpoint === 1,
    });
    found.push(...violations.map((violation) => ({ ...violation, path: `items[${i}].${violation.path}` })));
  });
  if (body.next_page_params !== null && document.document.cursors.has(endpoint))
    found.push(...document.checkCursor(endpoint, body.next_page_params));
  return found;
}

describe.each(databaseKinds)("responses on %s", (kind) => {
  let chain: IndexedChain;
  let cases: ListCase[];
  /** Every page the suite checks: each variant's first, middle and last page, by endpoint. */
  const pages: { endpoint: number; page: Fetched }[] = [];
  let blockscout: ResponseValidator;
  const recorded = recordedShapesByEndpoint();

  beforeAll(async () => {
    chain = await indexDemoChain(kind);
    cases = await listCases(chain.test.db);
    blockscout = blockscoutValidator();
    for (const entry of cases) {
      for (const page of await pagesOf(chain, entry)) pages.push({ endpoint: entry.endpoint, page });
    }
  });
  afterAll(() => chain?.close());

  const endpoints = [1, 2, 3, 4, 5, 6, 8, 9, 11, 12, 13];

  it("requests every list endpoint with rows, on several pages", () => {
    for (const endpoint of endpoints) {
      const own = pages.filter((entry) => entry.endpoint === endpoint);
      expect(own.length, `endpoint ${endpoint}`).toBeGreaterThan(0);
      for (const { page } of own) expect(page.status, page.url).toBe(200);
      const items = own.flatMap(({ page }) => (page.body as { items: unknown[] }).items);
      expect(items.length, `endpoint ${endpoint} has no rows on the demo chain`).toBeGreaterThan(0);
    }
    expect(pages.some(({ page }) => page.url.includes("block_number="))).toBe(true);
  });

  it.each(endpoints)("endpoint %i validates against Blockscout's schemas (superset rule)", (endpoint) => {
    const problems = pages
      .filter((entry) => entry.endpoint === endpoint)
      .flatMap(({ page }) => blockscout(page.url, page.status, page.body));
    expect(distinct(problems)).toEqual([]);
  });

  it.each(endpoints)("endpoint %i validates against Sextant's own OpenAPI document", async (endpoint) => {
    const served = await fetchJson(chain.app, "/api/v2/openapi.json");
    expect(served.status, "GET /api/v2/openapi.json").toBe(200);
    const own = ownDocumentValidator(served.body as Parameters<typeof ownDocumentValidator>[0]);
    const problems = pages
      .filter((entry) => entry.endpoint === endpoint)
      .flatMap(({ page }) => own(page.url, page.status, page.body));
    expect(distinct(problems)).toEqual([]);
  });

  it.each(endpoints)("endpoint %i has every field of the interface document, with its type", (endpoint) => {
    const problems = pages
      .filter((entry) => entry.endpoint === endpoint)
      .flatMap(({ page }) =>
        documentViolations(endpoint, page.body as { items: unknown[]; next_page_params: unknown }).map(
          (violation) => `${violation.path} ${violation.problem}`,
        ),
      );
    expect(distinct(problems)).toEqual([]);
  });

  it.each([...recorded.keys()])(
    "endpoint %i items carry every key of the recorded Blockscout items",
    (endpoint) => {
      const shapes = recorded.get(endpoint) as RecordedShapes;
      const missing = new Set<string>();
      for (const { page } of pages.filter((entry) => entry.endpoint === endpoint)) {
        for (const item of (page.body as { items: unknown[] }).items)
          for (const key of missingRecordedKeys(item, shapes)) missing.add(key);
      }
      expect([...missing].sort()).toEqual([]);
    },
  );

  it("each validator rejects a real response with a field removed or retyped", () => {
    const found = pages.find(
      (entry) => entry.endpoint === 2 && (entry.page.body as { items: [] }).items.length > 0,
    );
    if (!found) throw new Error("no transactions page to break");
    const { page } = found;
    const body = page.body as { items: Record<string, unknown>[]; next_page_params: unknown };
    const shapes = recorded.get(2) as RecordedShapes;
    const removed = structuredClone(body);
    delete removed.items[0].hash;
    const retyped = structuredClone(body);
    retyped.items[0].block_number = String(retyped.items[0].block_number);
    // Compared with the unbroken body's count, so the proof holds while other faults are being fixed.
    const originalCount = blockscout(page.url, 200, body).length;
    for (const broken of [removed, retyped]) {
      expect(blockscout(page.url, 200, broken).length).toBeGreaterThan(originalCount);
      expect(documentViolations(2, broken).length).toBeGreaterThan(documentViolations(2, body).length);
    }
    expect(missingRecordedKeys(removed.items[0], shapes)).toContain("item.hash");
    expect(missingRecordedKeys(body.items[0], shapes)).not.toContain("item.hash");
  });
});
