import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { IndexerStatus } from "./indexer/create-indexer.ts";
import { startProgressBar } from "./progress.ts";

describe("startProgressBar", () => {
  it("draws blocks of the head, rates and time left, then leaves one summary line once following", async () => {
    const stream = Object.assign(new PassThrough(), { columns: 120 });
    let output = "";
    stream.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const status: IndexerStatus = {
      indexedBlock: 0n,
      headBlock: 1_000n,
      following: false,
      tracer: "parity",
      blocksWritten: 0,
      transactionsWritten: 0,
      indexCompactions: 0,
    };
    const stop = startProgressBar({ status: () => ({ ...status }), stream, intervalMs: 20 });
    // 100 blocks and 300 transactions every 50 ms: 2,000 blocks/s, 6,000 tx/s.
    for (let i = 1; i <= 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status.indexedBlock = BigInt(100 * i);
      status.blocksWritten = 100 * i;
      status.transactionsWritten = 300 * i;
    }
    await new Promise((resolve) => setTimeout(resolve, 60));
    const lines = output.split("\r\x1b[2K").filter(Boolean);
    const last = lines[lines.length - 1] as string;
    expect(last).toMatch(
      /^\[#{20}\.{20}\] 50\.0% block 500 of 1000 · \d+ blocks\/s · \d+ tx\/s · \d+ s left$/,
    );
    const [, blocksPerSecond, transactionsPerSecond] = last.match(/(\d+) blocks\/s · (\d+) tx\/s/) ?? [];
    expect(Number(transactionsPerSecond)).toBeCloseTo(3 * Number(blocksPerSecond), -2);

    status.following = true;
    await new Promise((resolve) => setTimeout(resolve, 60));
    const erase = "\r\x1b[2K";
    expect(output.slice(output.lastIndexOf(erase) + erase.length)).toMatch(
      /^indexed 500 blocks and 1500 transactions in \d+ s\n$/,
    );
    stop();
    expect(output.match(/indexed 500 blocks/g)).toHaveLength(1);
  });
});
