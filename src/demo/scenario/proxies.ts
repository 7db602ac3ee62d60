import { call, deployed, pick, type Scenario } from "./context.ts";
import { mineAlone, mineTogether, type PlannedTransaction } from "./mine.ts";

/** Calls through the EIP-1967 proxy: one alone in even rounds, two in a block in odd rounds. */
export async function proxyActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const proxy = deployed(scenario, "proxy");
  const increment: PlannedTransaction = {
    from: pick(accounts, round),
    to: proxy,
    data: call(scenario, "CounterV1", "increment", []),
    example: "proxyCall",
  };
  if (round % 2 === 0) {
    await mineAlone(scenario, increment);
    return;
  }
  await mineTogether(scenario, [
    increment,
    {
      from: pick(accounts, round + 1, increment.from),
      to: proxy,
      data: call(scenario, "CounterV1", "setValue", [BigInt(round) * 10n]),
      fees: "legacy",
    },
  ]);
}
