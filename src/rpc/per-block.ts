import { required } from "../required.ts";
import type { StateBlock } from "./read-state.ts";

/**
 * Runs `read` once per block for the items read at that block, in parallel, and returns the answers in
 * the items' order: `eth_call` and `eth_getCode` batches take one block each.
 *
 * @example
 * const codes = await perBlock(contracts, (block, group) =>
 *   eth_getCode(client, { addresses: group.map((contract) => contract.address), block }),
 * );
 */
export async function perBlock<Item extends { block: StateBlock }, Answer>(
  items: Item[],
  read: (block: StateBlock, group: Item[]) => Promise<Answer[]>,
): Promise<Answer[]> {
  const groups = new Map<string, { block: StateBlock; positions: number[]; items: Item[] }>();
  items.forEach((item, position) => {
    const key = `${item.block.number}/${item.block.hash}`;
    const group = groups.get(key);
    if (group) {
      group.positions.push(position);
      group.items.push(item);
    } else groups.set(key, { block: item.block, positions: [position], items: [item] });
  });
  const answers: Answer[] = new Array(items.length);
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const got = await read(group.block, group.items);
      group.positions.forEach((position, j) => {
        answers[position] = required(
          got[j],
          `answer ${j} of ${group.items.length} at block ${group.block.number}`,
        );
      });
    }),
  );
  return answers;
}
