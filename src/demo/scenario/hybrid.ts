import { type Address, parseEther } from "viem";
import { abiOf, call, deployed, pick, type Scenario, type ScenarioExamples } from "./context.ts";
import { mineTogether, type PlannedTransaction } from "./mine.ts";

/** One whole unit of the hybrid token, which is also one NFT. */
const hybridUnit = parseEther("1");
/** What `deploy` mints to each account, in turn: whole units become NFTs, the fractions do not. */
export const hybridSeed = ["2.5", "6", "4.5", "3", "2.25", "1.5"].map((units) => parseEther(units));
/**
 * Gas of every hybrid transaction. Explicit: gas estimated against the previous block misses NFTs that an
 * earlier transaction in the same block makes a transfer mint.
 */
export const hybridGas = 1_500_000n;

/**
 * One block of hybrid transfers: the richest holder sends exactly one unit (one NFT moves along), the
 * next one sends a fraction (NFTs are burnt or minted where whole units are crossed). Every fourth round
 * adds ERC-721 approvals and a second block where the approved operator moves the approved id.
 */
export async function hybridActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts, publicClient } = scenario;
  const address = deployed(scenario, "hybrid");
  const abi = abiOf(scenario, "DemoHybrid");
  const read = async <value>(functionName: string, holder: Address) =>
    (await publicClient.readContract({ address, abi, functionName, args: [holder] })) as value;
  const holders = await Promise.all(
    accounts.map(async (account) => ({ account, balance: await read<bigint>("balanceOf", account) })),
  );
  // Stable sort: ties keep account order, so the scenario stays deterministic.
  const [first, second, ...others] = holders.sort((a, b) =>
    a.balance === b.balance ? 0 : a.balance > b.balance ? -1 : 1,
  );
  if (first === undefined || first.balance < hybridUnit)
    throw new Error("no hybrid holder has a whole unit left");
  if (second === undefined) throw new Error("the hybrid activity needs a second holder");
  const hybrid = (
    from: Address,
    functionName: string,
    args: unknown[],
    example?: keyof ScenarioExamples,
  ) => ({
    from,
    to: address,
    data: call(scenario, "DemoHybrid", functionName, args),
    gas: hybridGas,
    example,
  });

  const plans: PlannedTransaction[] = [
    hybrid(
      first.account,
      "transfer",
      [pick(accounts, round + 1, first.account), hybridUnit],
      "hybridTransfer",
    ),
  ];
  const fraction = parseEther("0.35") + BigInt(round) * 10n ** 15n;
  if (second.balance >= fraction) {
    plans.push(hybrid(second.account, "transfer", [pick(accounts, round + 3, second.account), fraction]));
  }
  // Neither sender above touches this holder's NFTs, so the approved id stays where it is.
  const approver = round % 4 === 2 ? others.find((holder) => holder.balance >= hybridUnit) : undefined;
  if (approver === undefined) {
    await mineTogether(scenario, plans);
    return;
  }
  const operator = pick(accounts, round + 4, approver.account);
  const allOperator = pick(accounts, round + 5, approver.account, operator);
  const [id] = await read<readonly bigint[]>("owned", approver.account);
  await mineTogether(scenario, [
    ...plans,
    hybrid(approver.account, "approve", [operator, id], "hybridNftApproval"),
    hybrid(approver.account, "setApprovalForAll", [allOperator, true], "hybridApprovalForAll"),
    hybrid(approver.account, "approve", [allOperator, parseEther("0.5")]),
  ]);
  await mineTogether(scenario, [
    hybrid(operator, "transferFrom", [approver.account, operator, id], "hybridNftTransfer"),
    hybrid(approver.account, "setApprovalForAll", [allOperator, false]),
  ]);
}
