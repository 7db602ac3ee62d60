import { required } from "../required.ts";

/**
 * Runs `read` once per block for the items read at that block, in parallel, and returns the answers in
 * the items' order: `eth_call` and `eth_getCode` batches take one block each.
 *
 * @example
 * const codes = await perBlock(contracts, (blockNumber, group) =>
 *   eth_getCode(client, { addresses: group.map((contract) => contract.address), blockNumber }),
 * );
 */
export async function perBlock<Item extends { blockNumber: bigint }, Answer>(
  items: Item[],
  read: (blockNumber: bigint, group: Item[]) => Promise<Answer[]>,
): Promise<Answer[]> {
  const groups = new Map<bigint, { positions: number[]; items: Item[] }>();
  items.forEach((item, position) => {
    const group = groups.get(item.blockNumber);
    if (group) {
      group.positions.push(position);
      group.items.push(item);
    } else groups.set(item.blockNumber, { positions: [position], items: [item] });
  });
  const answers: Answer[] = new Array(items.length);
  await Promise.all(
    [...groups].map(async ([blockNumber, group]) => {
      const got = await read(blockNumber, group.items);
      group.positions.forEach((position, j) => {
        answers[position] = required(got[j], `answer ${j} of ${group.items.length} at block ${blockNumber}`);
      });
    }),
  );
  return answers;
}
