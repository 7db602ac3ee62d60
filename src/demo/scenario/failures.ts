import { parseEther } from "viem";
import { call, deployed, pick, type Scenario } from "./context.ts";
import { mineAlone, mineTogether } from "./mine.ts";
import { collectibleTokenUri } from "./nfts.ts";

// Failing transactions carry an explicit gas limit: without one anvil estimates gas, hits the revert and
// refuses to send the transaction at all.
const failingGas = 200_000n;

/**
 * Intentional failures: in even rounds a block mixing reverts (a reason, a custom error, an ERC-20 error)
 * with a success; in odd rounds one failed transaction alone (out of gas, not the owner, ether refused).
 */
export async function failures(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const playground = deployed(scenario, "playground");
  const token = deployed(scenario, "token");
  const sender = (offset: number) => pick(accounts, round + offset);
  if (round % 2 === 0) {
    // A block mixing failed and successful transactions.
    await mineTogether(scenario, [
      {
        from: sender(1),
        to: playground,
        data: call(scenario, "Playground", "failWithReason", []),
        gas: failingGas,
        expectFailure: true,
        example: "failedWithReason",
      },
      {
        from: sender(2),
        to: playground,
        data: call(scenario, "Playground", "failWithCustomError", [BigInt(round)]),
        gas: failingGas,
        fees: "legacy",
        expectFailure: true,
        example: "failedWithCustomError",
      },
      {
        from: sender(3),
        to: token,
        data: call(scenario, "DemoToken", "transfer", [sender(4), parseEther("1000000000")]),
        gas: failingGas,
        expectFailure: true,
      },
      { from: sender(4), to: sender(5), value: parseEther("0.001") },
    ]);
    return;
  }
  const kind = (round >> 1) % 3;
  if (kind === 0) {
    // 25k gas covers the intrinsic cost but not the delegatecall and storage write behind the proxy.
    await mineAlone(scenario, {
      from: sender(1),
      to: deployed(scenario, "proxy"),
      data: call(scenario, "CounterV1", "increment", []),
      gas: 25_000n,
      expectFailure: true,
      example: "failedOutOfGas",
    });
  } else if (kind === 1) {
    await mineAlone(scenario, {
      from: pick(accounts, round + 1, accounts[0]),
      to: deployed(scenario, "collectible"),
      data: call(scenario, "DemoCollectible", "mint", [sender(2), collectibleTokenUri(0n)]),
      gas: failingGas,
      expectFailure: true,
    });
  } else {
    // DemoToken has neither receive nor fallback, so plain ether is refused.
    await mineAlone(scenario, {
      from: sender(1),
      to: token,
      value: parseEther("0.1"),
      gas: failingGas,
      expectFailure: true,
    });
  }
}
