import { type Address, parseEther } from "viem";
import { call, deployed, pick, type Scenario } from "./context.ts";
import { mineAlone, mineTogether, type PlannedTransaction } from "./mine.ts";

/**
 * One block of ERC-20 transfers, an approval, a burn and every other round a revoked allowance; then a
 * `transferFrom` of the allowance alone, and every seventh round a mint alone.
 */
export async function tokenActivity(scenario: Scenario, round: number): Promise<void> {
  const { accounts } = scenario;
  const token = deployed(scenario, "token");
  const [spender, approver] = approvalPair(accounts, round);
  const transfers: PlannedTransaction[] = [1, 3, 4].map((offset) => {
    const from = pick(accounts, round + offset, spender, approver);
    return {
      from,
      to: token,
      data: call(scenario, "DemoToken", "transfer", [
        pick(accounts, round + offset + 1, from),
        parseEther("1") * BigInt(offset) + BigInt(round),
      ]),
      fees: offset === 3 ? "legacy" : "eip1559",
      example: "tokenTransfer",
    };
  });
  const plans: PlannedTransaction[] = [
    ...transfers,
    {
      from: approver,
      to: token,
      data: call(scenario, "DemoToken", "approve", [spender, parseEther("50")]),
      example: "tokenApproval",
    },
    {
      from: pick(accounts, round + 4),
      to: token,
      data: call(scenario, "DemoToken", "burn", [parseEther("0.5") + BigInt(round)]),
      example: "tokenBurn",
    },
  ];
  if (round % 2 === 1) {
    // Revoke what is left of the previous round's allowance; this round's pair differs, so order is free.
    const [previousSpender, previousApprover] = approvalPair(accounts, round - 1);
    plans.push({
      from: previousApprover,
      to: token,
      data: call(scenario, "DemoToken", "approve", [previousSpender, 0n]),
      example: "tokenApprovalRevoked",
    });
  }
  await mineTogether(scenario, plans);
  await mineAlone(scenario, {
    from: spender,
    to: token,
    data: call(scenario, "DemoToken", "transferFrom", [approver, spender, parseEther("5")]),
  });
  if (round % 7 === 0) {
    await mineAlone(scenario, {
      from: accounts[0],
      to: token,
      data: call(scenario, "DemoToken", "mint", [pick(accounts, round + 3), parseEther("250")]),
      example: "tokenMint",
    });
  }
}

/** Spender and approver of the round's ERC-20 allowance; consecutive rounds have different spenders. */
function approvalPair(accounts: Address[], round: number): [spender: Address, approver: Address] {
  const spender = pick(accounts, round + 2);
  return [spender, pick(accounts, round + 5, spender)];
}

/** Every other round: transfers and an approval of the tokens with a `bytes32` and a reverting `name()`. */
export async function oddMetadataTokenActivity(scenario: Scenario, round: number): Promise<void> {
  if (round % 2 !== 0) return;
  const { accounts } = scenario;
  const bytes32Token = deployed(scenario, "bytes32Token");
  const revertingNameToken = deployed(scenario, "revertingNameToken");
  const sender = (offset: number) => pick(accounts, round + offset);
  const amount = parseEther("1") + BigInt(round);
  await mineTogether(scenario, [
    {
      from: sender(1),
      to: bytes32Token,
      data: call(scenario, "DemoBytes32Token", "transfer", [sender(2), amount]),
      example: "bytes32TokenTransfer",
    },
    {
      from: sender(2),
      to: bytes32Token,
      data: call(scenario, "DemoBytes32Token", "approve", [sender(3), parseEther("10")]),
    },
    {
      from: sender(3),
      to: revertingNameToken,
      data: call(scenario, "DemoRevertingNameToken", "transfer", [sender(4), amount * 2n]),
      example: "revertingNameTokenTransfer",
    },
  ]);
}
