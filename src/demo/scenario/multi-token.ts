import { call, deployed, pick, type Scenario } from "./context.ts";
import { mineAlone, mineTogether, type PlannedTransaction } from "./mine.ts";

/** One block: an ERC-1155 batch mint, half of the previous round's batch moved on, every third round a single mint. */
export async function multiTokenActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts, multiToken } = scenario;
  const address = deployed(scenario, "multiToken");
  const holder = pick(accounts, round + 2, accounts[0]);
  const ids = [0, 1, 2].map((offset) => BigInt(((round + offset) % 5) + 1));
  const amounts = [10n, 25n, 100n].map((amount) => amount + BigInt(round));
  const plans: PlannedTransaction[] = [
    {
      from: accounts[0],
      to: address,
      data: call(scenario, "DemoMultiToken", "mintBatch", [holder, ids, amounts, "0x"]),
      example: "multiTokenMintBatch",
    },
  ];

  const previous = multiToken.lastMint;
  if (previous !== undefined) {
    const recipient = pick(accounts, round + 5, previous.holder);
    plans.push({
      from: previous.holder,
      to: address,
      data: call(scenario, "DemoMultiToken", "safeBatchTransferFrom", [
        previous.holder,
        recipient,
        previous.ids,
        previous.amounts.map((amount) => amount / 2n),
        "0x",
      ]),
      example: "multiTokenBatchTransfer",
    });
  }
  if (round % 3 === 0) {
    plans.push({
      from: accounts[0],
      to: address,
      data: call(scenario, "DemoMultiToken", "mint", [
        pick(accounts, round + 7),
        100n + BigInt(round),
        1n,
        "0x",
      ]),
    });
  }
  multiToken.lastMint = { holder, ids, amounts };
  await mineTogether(scenario, plans);
}

/** Ids 1001 to 1010, kept apart from {@link multiTokenActivity}'s ids so burns never starve its transfers. */
const batchOfTenIds = Array.from({ length: 10 }, (_, index) => 1001n + BigInt(index));

/** Every fourth round: a mint of ten ids, then a transfer of the same ten ids plus burns, in two blocks. */
export async function multiTokenBatchOfTen(scenario: Scenario, round: number): Promise<void> {
  if (round % 4 !== 1) return;
  const { accounts } = scenario;
  const address = deployed(scenario, "multiToken");
  const holder = pick(accounts, round + 1, accounts[0]);
  const recipient = pick(accounts, round + 3, holder);
  const amounts = batchOfTenIds.map((_, index) => 20n + BigInt(index + round));
  await mineAlone(scenario, {
    from: accounts[0],
    to: address,
    data: call(scenario, "DemoMultiToken", "mintBatch", [holder, batchOfTenIds, amounts, "0x"]),
    example: "multiTokenMintBatchOfTen",
  });
  // The holder spends at most half of each amount plus 3, so the order within the block does not matter.
  await mineTogether(scenario, [
    {
      from: holder,
      to: address,
      data: call(scenario, "DemoMultiToken", "safeBatchTransferFrom", [
        holder,
        recipient,
        batchOfTenIds,
        amounts.map((amount) => amount / 2n),
        "0x",
      ]),
      example: "multiTokenBatchOfTen",
    },
    {
      from: holder,
      to: address,
      data: call(scenario, "DemoMultiToken", "burn", [holder, batchOfTenIds[0], 3n]),
      example: "multiTokenBurn",
    },
    {
      from: holder,
      to: address,
      data: call(scenario, "DemoMultiToken", "burnBatch", [holder, batchOfTenIds.slice(1, 4), [1n, 2n, 3n]]),
      example: "multiTokenBurnBatch",
    },
  ]);
}
