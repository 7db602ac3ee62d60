import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../support/databases.ts";
import { only } from "../support/elements.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { fetchJson, hex, indexDemoChain, sql, successfulTransactions } from "./demo-chain.ts";

const variableTypes = [
  "string",
  "currency",
  "token",
  "address",
  "timestamp",
  "domain",
  "method",
  "dexTag",
  "external_link",
];

// The same responses are checked against the interface document and Blockscout's schemas by
// `test/reference/summary-and-status.test.ts` (`npm run test:reference`).
describe.each(databaseKinds)("endpoints 7 and 10 on %s", (kind) => {
  let chain: IndexedChain;
  let successful: string[];
  let failed: string;

  beforeAll(async () => {
    chain = await indexDemoChain(kind);
    successful = await successfulTransactions(chain.test.db);
    ({ hash: failed } = only(
      await sql<{ hash: string }>(
        chain.test.db,
        `SELECT ${hex("hash")} AS hash FROM transactions WHERE status = 0 ORDER BY block_number LIMIT 1`,
      ),
    ));
  });
  afterAll(() => chain?.close());

  it("summarizes every successful transaction of the demo as the contract says", async () => {
    for (const hash of successful) {
      const url = `/api/v2/transactions/${hash}/summary`;
      const response = await fetchJson(chain.app, url);
      expect(response.status, url).toBe(200);
      const { success, data } = response.body as {
        success: boolean;
        data: {
          summaries: {
            summary_template: string;
            summary_template_variables: Record<string, { type: string; value: unknown }>;
          }[];
        };
      };
      expect(success).toBe(true);
      expect(data.summaries.length, url).toBeGreaterThan(0);
      for (const summary of data.summaries) {
        const names = [...summary.summary_template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        expect(Object.keys(summary.summary_template_variables).sort(), url).toEqual(
          [...new Set(names)].sort(),
        );
        for (const variable of Object.values(summary.summary_template_variables)) {
          expect(variableTypes, url).toContain(variable.type);
          expect(variable.value, url).not.toBeNull();
          if (variable.type === "currency")
            expect(String(variable.value), url).toMatch(/^[0-9]+(\.[0-9]+)?$/);
        }
      }
    }
  });

  it("answers 200 null for a failed transaction, 404 for an unknown one and 422 for a bad hash", async () => {
    const failedSummary = await fetchJson(chain.app, `/api/v2/transactions/${failed}/summary`);
    expect(failedSummary.status).toBe(200);
    expect(failedSummary.text).toBe("null");
    const unknown = await fetchJson(chain.app, `/api/v2/transactions/0x${"12".repeat(32)}/summary`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: "Not found" });
    const bad = await fetchJson(chain.app, "/api/v2/transactions/0x12/summary");
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      errors: [
        {
          title: "Invalid value",
          source: { pointer: "/transaction_hash_param" },
          detail: "Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/",
        },
      ],
    });
  });

  it("reports the account-abstraction indexer's status as the contract says", async () => {
    const url = "/api/v2/proxy/account-abstraction/status";
    const response = await fetchJson(chain.app, url);
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    const body = response.body as Record<string, unknown> & { finished_past_indexing: boolean };
    const groups = ["v06", "v07", "v07_v08"].map((name) => {
      const group = body[name] as Record<string, boolean>;
      expect(Object.keys(group).sort(), name).toEqual(
        ["enabled", "live", "past_db_logs_indexing_finished", "past_rpc_logs_indexing_finished"].sort(),
      );
      return group;
    });
    expect(body.finished_past_indexing).toBe(
      groups.every(
        (group) =>
          !group.enabled || (group.past_db_logs_indexing_finished && group.past_rpc_logs_indexing_finished),
      ),
    );
  });
});
