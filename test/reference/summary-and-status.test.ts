import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchJson, indexDemoChain, successfulTransactions } from "../conformance/demo-chain.ts";
import { databaseKinds } from "../support/databases.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { blockscoutValidator } from "./blockscout-validator.ts";
import { DocumentChecker, readInterfaceDocument } from "./interface-document.ts";

const document = new DocumentChecker(readInterfaceDocument());

// The contract's own rules for these responses are checked by `test/conformance/summary-and-status.test.ts`.
describe.each(databaseKinds)("endpoints 7 and 10 on %s against the shared reference", (kind) => {
  let chain: IndexedChain;
  let successful: string[];

  beforeAll(async () => {
    chain = await indexDemoChain(kind);
    successful = await successfulTransactions(chain.test.db);
  });
  afterAll(() => chain?.close());

  it("summarizes every successful transaction of the demo as the interface document and Blockscout's schema say", async () => {
    const blockscout = blockscoutValidator();
    expect(successful.length).toBeGreaterThan(0);
    for (const hash of successful) {
      const url = `/api/v2/transactions/${hash}/summary`;
      const response = await fetchJson(chain.app, url);
      expect(response.status, url).toBe(200);
      expect(document.checkObject("transaction summary response", response.body), url).toEqual([]);
      expect(blockscout(url, 200, response.body), url).toEqual([]);
      const { data } = response.body as {
        data: {
          summaries: { summary_template_variables: Record<string, { type: string; value: unknown }> }[];
        };
      };
      for (const summary of data.summaries) {
        for (const variable of Object.values(summary.summary_template_variables)) {
          if (variable.type === "token")
            expect(document.checkObject("token object", variable.value), url).toEqual([]);
          if (variable.type === "address")
            expect(document.checkObject("address object", variable.value), url).toEqual([]);
        }
      }
    }
  });

  it("reports the account-abstraction indexer's status as the interface document and Blockscout's schema say", async () => {
    const url = "/api/v2/proxy/account-abstraction/status";
    const response = await fetchJson(chain.app, url);
    expect(response.status).toBe(200);
    expect(document.checkObject("account-abstraction status", response.body)).toEqual([]);
    expect(blockscoutValidator()(url, 200, response.body)).toEqual([]);
  });
});
