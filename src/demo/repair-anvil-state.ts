import { readFileSync, renameSync, writeFileSync } from "node:fs";

/** The parts of anvil's state dump (`--state`, `anvil_dumpState`) this module reads. */
type AnvilStateDump = { blocks: { header: { number: string; timestamp: string } }[] };

/** Return type of {@link repairAnvilState}: how many stray genesis blocks were dropped. */
export type RepairAnvilStateReturnType = { droppedGenesisBlocks: number };

/**
 * Keeps only the chain's original genesis block in an anvil state dump. Every load with `--state` makes
 * anvil add a new genesis block stamped with the current time, and its next dump keeps it next to the
 * old ones; once a file holds two, which one anvil serves as block 0 changes from start to start. The
 * original is the oldest: every copy was made at a later load, after the chain's first block was mined.
 * The file is rewritten (write then rename, never half-written) only when something was dropped.
 *
 * @throws when the file is missing, is not JSON, has no block 0, or cannot be rewritten exactly.
 * @example
 * await anvilRunningElsewhere.stop();
 * repairAnvilState(".sextant/demo/anvil-state.json");
 * const anvil = await startAnvil({ stateFile: ".sextant/demo/anvil-state.json" });
 */
export function repairAnvilState(file: string): RepairAnvilStateReturnType {
  const text = readFileSync(file, "utf8");
  const state = JSON.parse(text) as AnvilStateDump;
  if (!Array.isArray(state?.blocks)) throw new Error(`${file} is not an anvil state dump`);
  const genesisBlocks = state.blocks.filter(({ header }) => BigInt(header.number) === 0n);
  if (genesisBlocks.length === 0) throw new Error(`${file} has no block 0`);
  if (genesisBlocks.length === 1) return { droppedGenesisBlocks: 0 };
  // Rewriting goes through JS numbers, exact only up to 2^53; anvil's numbers (gas amounts) stay far below.
  if (/[:,[]\s*-?\d{16,}/.test(text)) throw new Error(`${file} holds numbers too large to rewrite exactly`);
  const original = genesisBlocks.reduce((oldest, block) =>
    BigInt(block.header.timestamp) < BigInt(oldest.header.timestamp) ? block : oldest,
  );
  state.blocks = state.blocks.filter((block) => block === original || BigInt(block.header.number) !== 0n);
  const temporaryFile = `${file}.${process.pid}.tmp`;
  writeFileSync(temporaryFile, JSON.stringify(state));
  renameSync(temporaryFile, file);
  return { droppedGenesisBlocks: genesisBlocks.length - 1 };
}
