import {
  type Address,
  type Hex,
  padHex,
  parseEther,
  parseEventLogs,
  type TransactionReceipt,
  toHex,
} from "viem";
import { abiOf, call, deployed, pick, type Scenario } from "./context.ts";
import { mineAlone, mineTogether } from "./mine.ts";

/**
 * Internal transactions through the Playground: nested calls, value forwarding, CREATE2 and caught reverts
 * in one block (destroying the previous round's child), then a CREATE and a create-and-selfdestruct alone.
 */
export async function playgroundActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const playground = deployed(scenario, "playground");
  const sender = (offset: number) => pick(accounts, round + offset);
  const previousChild = scenario.playground.lastCreateChild;

  const [, , create2Receipt] = await mineTogether(scenario, [
    {
      from: sender(0),
      to: playground,
      data: call(scenario, "Playground", "nestedCalls", [BigInt(2 + (round % 3))]),
      example: "nestedCalls",
    },
    {
      from: sender(1),
      to: playground,
      data: call(scenario, "Playground", "split", [[sender(2), sender(3), playground]]),
      value: parseEther("0.3"),
      example: "valueForwarding",
    },
    {
      from: sender(2),
      to: playground,
      data: call(scenario, "Playground", "createChild2", [create2Salt(round)]),
      value: parseEther("0.02"),
      example: "create2",
    },
    {
      from: sender(3),
      to: playground,
      data: call(scenario, "Playground", "catchInnerFailure", []),
      example: "caughtInnerRevert",
    },
    ...(previousChild === undefined
      ? []
      : [
          {
            from: sender(4),
            to: playground,
            data: call(scenario, "Playground", "destroyChild", [previousChild]),
          },
        ]),
  ]);
  scenario.contracts.create2Child ??= createdChildren(scenario, create2Receipt)[0];

  const createReceipt = await mineAlone(scenario, {
    from: sender(5),
    to: playground,
    data: call(scenario, "Playground", "createChild", []),
    value: parseEther("0.01"),
    fees: "legacy",
    example: "create",
  });
  scenario.playground.lastCreateChild = createdChildren(scenario, createReceipt)[0];

  await mineAlone(scenario, {
    from: sender(6),
    to: playground,
    data: call(scenario, "Playground", "createAndDestroy", []),
    value: parseEther("0.005"),
    example: "selfdestruct",
  });
}

function createdChildren(scenario: Scenario, receipt: TransactionReceipt): Address[] {
  const logs = parseEventLogs({
    abi: abiOf(scenario, "Playground"),
    logs: receipt.logs,
    eventName: "ChildCreated",
  });
  return logs.map((log) => (log.args as { child: Address }).child);
}

/** Salt of the CREATE2 child of a round; tests predict the child's address from it. */
export function create2Salt(round: number): Hex {
  return padHex(toHex(round + 1), { size: 32 });
}
