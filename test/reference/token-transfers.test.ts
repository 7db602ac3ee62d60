import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createRpcClient } from "../../src/rpc/client.ts";
import { databaseKinds } from "../support/databases.ts";
import { at } from "../support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "../support/indexed-chain.ts";
import { readRecording } from "./recorded-responses.ts";

/** Recorded eth.blockscout.com token transfer lists: the chain's and an address's. */
const recordings = [
  "_api_v2_token-transfers.json",
  "_api_v2_addresses_0xc0de20a37e2dac848f81a93bd85fe4acdde7c0de_token-transfers.json",
];

// The demo chain indexed as `test/api-token-transfers.test.ts` indexes it.
describe.each(databaseKinds)("token transfer lists on %s against recorded Blockscout responses", (kind) => {
  const scenario = JSON.parse(inject("demoScenario"));
  let indexed: IndexedChain;

  beforeAll(async () => {
    indexed = await indexIntoNewDatabase(kind, createRpcClient({ url: inject("demoRpcUrl") }), {
      head: BigInt(scenario.headBlockNumber),
    });
  });
  afterAll(() => indexed?.close());

  it("keeps every key of Blockscout's recorded token transfer items", async () => {
    for (const file of recordings) {
      const theirs = at((readRecording(file).body as { items: Record<string, unknown>[] }).items, 0, file);
      const type = (theirs.token as { type: string }).type;
      // The newest transfer of that token type: the first item of the list filtered by it.
      const response = await indexed.app.inject(`/api/v2/token-transfers?type=${type}`);
      expect(response.statusCode, file).toBe(200);
      const mine: Record<string, unknown> = response.json().items[0];
      expect(mine, `no ${type} transfer on the demo chain`).toBeDefined();
      expect(Object.keys(mine)).toEqual(expect.arrayContaining(Object.keys(theirs)));
      for (const nested of ["from", "to", "token", "total"]) {
        expect(Object.keys(mine[nested] as object), `${file} ${nested}`).toEqual(
          expect.arrayContaining(Object.keys(theirs[nested] as object)),
        );
      }
    }
  });
});
