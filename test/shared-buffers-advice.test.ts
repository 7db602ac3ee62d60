import { toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { capturingLogger } from "./support/capturing-logger.ts";
import { databaseKinds } from "./support/databases.ts";
import { indexNode } from "./support/index-node.ts";

describe.each(databaseKinds)("PostgreSQL's memory before a long sync, on %s", (kind) => {
  let anvil: Anvil;
  const head = 12;
  beforeAll(async () => {
    anvil = await startAnvil();
    await createRpcClient({ url: anvil.rpcUrl }).request("anvil_mine", [toHex(head)]);
  });
  afterAll(() => anvil.stop());

  /** The warnings an indexer of the node logs while it prepares, with `largeSyncBlocks` as given. */
  async function warningsPreparing(largeSyncBlocks: bigint) {
    const { logger, lines } = capturingLogger();
    const { test } = await indexNode(kind, anvil.rpcUrl, { head: 0n, logger, largeSyncBlocks });
    try {
      const [setting] =
        kind === "postgres"
          ? await test.db.query<{ bytes: string }>(
              "SELECT pg_size_bytes(current_setting('shared_buffers')) AS bytes",
            )
          : [];
      return {
        warnings: lines.filter((line) => line.msg.includes("shared_buffers")),
        sharedBuffersMiB: setting && Number(setting.bytes) / 1024 ** 2,
      };
    } finally {
      await test.drop();
    }
  }

  it("warns of shared_buffers under 1 GiB when the head is that many blocks ahead, on PostgreSQL only", async () => {
    const { warnings, sharedBuffersMiB } = await warningsPreparing(BigInt(head + 1));
    // Blocks 0 to the head, none indexed yet.
    const expected =
      sharedBuffersMiB !== undefined && sharedBuffersMiB < 1024
        ? [expect.objectContaining({ sharedBuffersMiB, blocksBehind: head + 1 })]
        : [];
    expect(warnings).toEqual(expected);
  });

  it("says nothing of it for a shorter sync", async () => {
    const { warnings } = await warningsPreparing(BigInt(head + 2));
    expect(warnings).toEqual([]);
  });
});
