import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { at } from "../../test/support/elements.ts";
import { createRpcClient } from "../rpc/client.ts";
import { startAnvil } from "./anvil.ts";
import { repairAnvilState } from "./repair-anvil-state.ts";

type DumpedBlock = { header: { number: string; timestamp: string } };

const genesisTimestamps = (file: string) =>
  (JSON.parse(readFileSync(file, "utf8")) as { blocks: DumpedBlock[] }).blocks
    .filter(({ header }) => BigInt(header.number) === 0n)
    .map(({ header }) => BigInt(header.timestamp));

describe("repairAnvilState", () => {
  const folder = mkdtempSync(join(tmpdir(), "sextant-anvil-state-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("keeps block 0 and block 1's parent the same over repeated loads of one state file", async () => {
    const stateFile = join(folder, "state.json");
    const blocks = async (url: string) => {
      const client = createRpcClient({ url });
      await client.request("evm_mine");
      const answers = await client.batch<{ hash: string; parentHash: string }>(
        ["0x0", "0x1"].map((n) => ({ method: "eth_getBlockByNumber", params: [n, false] })),
      );
      return [at(answers, 0, "blocks 0 and 1"), at(answers, 1, "blocks 0 and 1")] as const;
    };
    const anvil = await startAnvil({ stateFile });
    const [original] = await blocks(anvil.rpcUrl);
    await anvil.stop();
    const [originalGenesis] = genesisTimestamps(stateFile);

    for (let load = 0; load < 4; load++) {
      // A new second, so that the genesis anvil adds at this load differs from the original.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const reloaded = await startAnvil({ stateFile });
      const [genesis, first] = await blocks(reloaded.rpcUrl);
      await reloaded.stop();
      expect(genesis.hash).toBe(original.hash);
      expect(first.parentHash).toBe(original.hash);
      // Anvil's dump keeps the genesis it added at this load; the next start drops it again.
      const dumped = genesisTimestamps(stateFile);
      expect(dumped).toHaveLength(2);
      expect(dumped).toContain(originalGenesis);
    }
    expect(repairAnvilState(stateFile)).toEqual({ droppedGenesisBlocks: 1 });
    expect(genesisTimestamps(stateFile)).toEqual([originalGenesis]);
    expect(repairAnvilState(stateFile)).toEqual({ droppedGenesisBlocks: 0 });
  });
});
