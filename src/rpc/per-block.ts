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
  const groups = new Map<bigint, number[]>();
  items.forEach((item, i) => {
    const group = groups.get(item.blockNumber);
    if (group) group.push(i);
    else groups.set(item.blockNumber, [i]);
  });
  const answers: Answer[] = new Array(items.length);
  await Promise.all(
    [...groups].map(async ([blockNumber, positions]) => {
      const got = await read(
        blockNumber,
        positions.map((i) => items[i]),
      );
      positions.forEach((i, j) => {
        answers[i] = got[j];
      });
    }),
  );
  return answers;
}
