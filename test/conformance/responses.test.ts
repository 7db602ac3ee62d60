import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../support/databases.ts";
import { listEndpoints } from "../support/endpoints.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { fetchJson, indexDemoChain } from "./demo-chain.ts";
import { distinct, fetchListPages, type ListPage, pagesOfEndpoint } from "./list-pages.ts";
import { ownDocumentValidator } from "./openapi-validators.ts";

// Blockscout's schemas, the interface document's tables and recorded Blockscout responses are checked on
// the same pages by `test/reference/responses.test.ts` (`npm run test:reference`).
describe.each(databaseKinds)("responses on %s", (kind) => {
  let chain: IndexedChain;
  const pages: ListPage[] = [];

  beforeAll(async () => {
    chain = await indexDemoChain(kind);
    pages.push(...(await fetchListPages(chain)));
  });
  afterAll(() => chain?.close());

  it("requests every list endpoint with rows, on several pages", () => {
    for (const endpoint of listEndpoints) {
      const name = endpoint.schema.operationId;
      const own = pages.filter((entry) => entry.endpoint === endpoint);
      expect(own.length, name).toBeGreaterThan(0);
      for (const { page } of own) expect(page.status, page.url).toBe(200);
      const items = own.flatMap(({ page }) => (page.body as { items: unknown[] }).items);
      expect(items.length, `${name} has no rows on the demo chain`).toBeGreaterThan(0);
    }
    expect(pages.some(({ page }) => page.url.includes("block_number="))).toBe(true);
  });

  it.each(listEndpoints.map((endpoint) => [endpoint.number, endpoint] as const))(
    "endpoint %i validates against Sextant's own OpenAPI document",
    async (_, endpoint) => {
      const served = await fetchJson(chain.app, "/api/v2/openapi.json");
      expect(served.status, "GET /api/v2/openapi.json").toBe(200);
      const own = ownDocumentValidator(served.body as Parameters<typeof ownDocumentValidator>[0]);
      const problems = pagesOfEndpoint(pages, endpoint).flatMap((page) =>
        own(page.url, page.status, page.body),
      );
      expect(distinct(problems)).toEqual([]);
    },
  );
});
