import { describe, expect, test } from "vitest";
import { uniswapV3PoolAbi } from "../../src/decode/builtin-abis.ts";
import { decodeLog } from "../../src/decode/decode-log.ts";
import { readRecording } from "./recorded-responses.ts";

type RecordedLog = { index: number; topics: (string | null)[]; data: string; decoded: unknown };

const { items } = readRecording("_api_v2_addresses_0x8FD4596d4E7788a71F82dAf4119D069a84E7d3f3_logs.json")
  .body as { items: RecordedLog[] };
const decodedItems = items.filter((item) => item.decoded !== null);

describe("logs of a real Uniswap v3 pool, as Blockscout decoded them", () => {
  test("the recording has decoded logs of several events", () => {
    expect(decodedItems.length).toBeGreaterThanOrEqual(10);
    const events = new Set(decodedItems.map((item) => (item.decoded as { method_id: string }).method_id));
    expect(events.size).toBeGreaterThanOrEqual(3);
  });

  test.each(decodedItems.map((item) => [item.index, item] as const))("log %i", (_, item) => {
    expect(decodeLog({ topics: item.topics, data: item.data, abi: uniswapV3PoolAbi })).toEqual(item.decoded);
  });

  test("the built-in table alone gives the same", () => {
    for (const item of decodedItems) {
      expect(decodeLog({ topics: item.topics, data: item.data })).toEqual(item.decoded);
    }
  });
});
