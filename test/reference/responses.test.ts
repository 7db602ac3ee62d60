import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexDemoChain } from "../conformance/demo-chain.ts";
import { distinct, fetchListPages, type ListPage, pagesOfEndpoint } from "../conformance/list-pages.ts";
import { databaseKinds } from "../support/databases.ts";
import { at } from "../support/elements.ts";
import { endpointNumbered, listEndpoints } from "../support/endpoints.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { blockscoutValidator } from "./blockscout-validator.ts";
import { DocumentChecker, readInterfaceDocument, type Violation } from "./interface-document.ts";
import {
  missingRecordedKeys,
  type RecordedShapes,
  readRecordings,
  recordedItemShapes,
} from "./recorded-responses.ts";

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

// The pages are those `test/conformance/responses.test.ts` checks against Sextant's own OpenAPI document.
describe.each(databaseKinds)("responses on %s against the shared reference", (kind) => {
  let chain: IndexedChain;
  const pages: ListPage[] = [];
  const blockscout = blockscoutValidator();
  const recorded = recordedShapesByEndpoint();

  beforeAll(async () => {
    chain = await indexDemoChain(kind);
    pages.push(...(await fetchListPages(chain)));
  });
  afterAll(() => chain?.close());

  const numbers = listEndpoints.map((endpoint) => endpoint.number);

  it.each(numbers)("endpoint %i validates against Blockscout's schemas (superset rule)", (endpoint) => {
    const problems = pagesOfEndpoint(pages, endpointNumbered(endpoint)).flatMap((page) =>
      blockscout(page.url, page.status, page.body),
    );
    expect(distinct(problems)).toEqual([]);
  });

  it.each(numbers)("endpoint %i has every field of the interface document, with its type", (endpoint) => {
    const problems = pagesOfEndpoint(pages, endpointNumbered(endpoint)).flatMap((page) =>
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
      for (const page of pagesOfEndpoint(pages, endpointNumbered(endpoint))) {
        for (const item of (page.body as { items: unknown[] }).items)
          for (const key of missingRecordedKeys(item, shapes)) missing.add(key);
      }
      expect([...missing].sort()).toEqual([]);
    },
  );

  it("each validator rejects a real response with a field removed or retyped", () => {
    const page = pagesOfEndpoint(pages, endpointNumbered(2)).find(
      (fetched) => (fetched.body as { items: [] }).items.length > 0,
    );
    if (!page) throw new Error("no transactions page to break");
    const body = page.body as { items: Record<string, unknown>[]; next_page_params: unknown };
    const shapes = recorded.get(2) as RecordedShapes;
    const removed = structuredClone(body);
    delete at(removed.items, 0).hash;
    const retyped = structuredClone(body);
    const retypedItem = at(retyped.items, 0);
    retypedItem.block_number = String(retypedItem.block_number);
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
