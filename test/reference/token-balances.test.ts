import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../../src/api/server.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { at } from "../support/elements.ts";
import {
  collector,
  fungible,
  fungibleHolders,
  holder,
  multi,
  seedTokenBalances,
} from "../support/token-balances-seed.ts";
import { readRecording } from "./recorded-responses.ts";

/** The items of a recorded eth.blockscout.com list response (`file` without `.json`). */
function recorded(file: string): Record<string, unknown>[] {
  return (readRecording(`${file}.json`).body as { items: Record<string, unknown>[] }).items;
}

const keys = (value: unknown) => Object.keys(value as object).sort();

// The rows of `test/api-token-balances.test.ts`, whose responses must carry every recorded key.
describe.each(databaseKinds)("token balance lists on %s against recorded Blockscout responses", (kind) => {
  let test: TestDatabase;
  let app: FastifyInstance;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON compared key by key.
  const items = async (url: string): Promise<any[]> => {
    const response = await app.inject(url);
    expect(response.statusCode, url).toBe(200);
    return response.json().items;
  };

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    await seedTokenBalances(test.db);
    app = await createApiServer({ db: test.db });
  });
  afterAll(async () => {
    await app?.close();
    await test?.drop();
  });

  it("/addresses/{hash}/tokens sends every key of the recorded Blockscout response", async () => {
    const real = recorded("_api_v2_addresses_0xc0de20a37e2dac848f81a93bd85fe4acdde7c0de_tokens");
    const [ours] = await items(`/api/v2/addresses/${holder}/tokens?type=ERC-1155`);
    const theirs = real.find((item) => item.token_instance) as {
      token: object;
      token_instance: { token: object };
    };
    expect(keys(ours)).toEqual(expect.arrayContaining(keys(theirs)));
    expect(keys(ours.token)).toEqual(expect.arrayContaining(keys(theirs.token)));
    expect(keys(ours.token_instance)).toEqual(expect.arrayContaining(keys(theirs.token_instance)));
    expect(keys(ours.token_instance.token)).toEqual(
      expect.arrayContaining(keys(theirs.token_instance.token)),
    );
  });

  it("/tokens/{hash}/holders renders the address with the recorded keys", async () => {
    const item = (await items(`/api/v2/tokens/${fungible}/holders`)).find(
      (entry: { address: { hash: string } }) =>
        entry.address.hash.toLowerCase() === at(fungibleHolders, 50).address,
    );
    const theirs = at(recorded("_api_v2_tokens_0xD4416b13d2b3a9aBae7AcD5D6C2BbDBE25686401_holders"), 0);
    expect(keys(item)).toEqual(expect.arrayContaining(keys(theirs)));
    expect(keys(item.address)).toEqual(expect.arrayContaining(keys(theirs.address)));
  });

  it("/tokens/{hash}/instances/{id}/holders sends every key of the recorded Blockscout response", async () => {
    const [ours] = await items(`/api/v2/tokens/${multi}/instances/5/holders`);
    const [theirs] = recorded(
      "_api_v2_tokens_0xD4416b13d2b3a9aBae7AcD5D6C2BbDBE25686401_instances_25625468407840116393736812939389551247551040926951238633020744494000165263268_holders",
    );
    expect(keys(ours)).toEqual(expect.arrayContaining(keys(theirs)));
  });

  it("/addresses/{hash}/nft/collections sends every key of the recorded Blockscout response", async () => {
    const theirs = at(
      recorded("_api_v2_addresses_0xc0de20a37e2dac848f81a93bd85fe4acdde7c0de_nft_collections") as {
        token: object;
        token_instances: object[];
      }[],
      0,
    );
    const [ours] = await items(`/api/v2/addresses/${collector}/nft/collections`);
    expect(keys(ours)).toEqual(expect.arrayContaining(keys(theirs)));
    expect(keys(ours.token)).toEqual(expect.arrayContaining(keys(theirs.token)));
    expect(keys(ours.token_instances[0])).toEqual(expect.arrayContaining(keys(theirs.token_instances[0])));
  });
});
