import { parseEther } from "viem";
import { pick, type Scenario } from "./context.ts";
import { type FeeStyle, mineAlone, mineTogether } from "./mine.ts";

/** One block of six value transfers in every fee style, then one legacy transfer alone. */
export async function valueTransfers(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const feeStyles: FeeStyle[] = ["legacy", "eip1559", "nodeDefault", "accessList"];
  await mineTogether(
    scenario,
    accounts.slice(0, 6).map((from, index) => ({
      from,
      to: pick(accounts, round + index + 1, from),
      value: parseEther("0.01") * BigInt(index + 1) + BigInt(round),
      fees: feeStyles[(round + index) % feeStyles.length],
      example: index % 2 === 0 ? "valueTransfer" : undefined,
    })),
  );
  await mineAlone(scenario, {
    from: pick(accounts, round + 6),
    to: pick(accounts, round + 7),
    value: parseEther("1.5"),
    fees: "legacy",
  });
}
