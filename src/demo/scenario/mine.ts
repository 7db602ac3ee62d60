import {
  type Address,
  formatTransactionRequest,
  type Hash,
  type Hex,
  parseGwei,
  type TransactionReceipt,
  type TransactionRequest,
} from "viem";
import { required } from "../../required.ts";
import { waitForReceipt } from "../wait-for-receipt.ts";
import { mapTuple, type Scenario, type ScenarioExamples } from "./context.ts";

/** How the transaction pays for gas, which also decides its type (0, 1 or 2). */
export type FeeStyle = "legacy" | "accessList" | "eip1559" | "nodeDefault";

/** A transaction to send, and what the scenario expects of it. */
export type PlannedTransaction = {
  from: Address;
  /** Omitted for contract creations. */
  to?: Address;
  data?: Hex;
  value?: bigint;
  gas?: bigint;
  fees?: FeeStyle;
  expectFailure?: boolean;
  /** Records the hash as the example of this kind unless one exists already. */
  example?: keyof ScenarioExamples;
};

/** Sends one transaction with automine on, so it gets a block of its own. */
export async function mineAlone(scenario: Scenario, plan: PlannedTransaction): Promise<TransactionReceipt> {
  const hash = await send(scenario, plan);
  return receiptOf(scenario, plan, hash);
}

/**
 * Sends the transactions with automine off and mines them into one block. Each sender's transactions go
 * in order (concurrent sends from one account collide on the nonce); different senders go in parallel.
 * Gas is estimated against the previous block, so plans must not depend on each other.
 */
export async function mineTogether<const Plans extends readonly PlannedTransaction[]>(
  scenario: Scenario,
  plans: Plans,
): Promise<{ -readonly [Index in keyof Plans]: TransactionReceipt }> {
  const bySender = new Map<Address, PlannedTransaction[]>();
  for (const plan of plans) bySender.set(plan.from, [...(bySender.get(plan.from) ?? []), plan]);
  const hashes = new Map<PlannedTransaction, Hash>();
  await scenario.testClient.setAutomine(false);
  try {
    await Promise.all(
      [...bySender.values()].map(async (senderPlans) => {
        for (const plan of senderPlans) hashes.set(plan, await send(scenario, plan));
      }),
    );
  } finally {
    await scenario.testClient.mine({ blocks: 1 });
    await scenario.testClient.setAutomine(true);
  }
  return Promise.all(
    mapTuple(plans, async (plan) => {
      const hash = required(hashes.get(plan), `the hash of a transaction from ${plan.from}`);
      return receiptOf(scenario, plan, hash);
    }),
  );
}

async function send(scenario: Scenario, plan: PlannedTransaction): Promise<Hash> {
  const hash = await scenario.walletClient.request({
    method: "eth_sendTransaction",
    params: [formatTransactionRequest(transactionRequest(plan))],
  });
  scenario.transactionCount++;
  if (plan.example !== undefined) scenario.examples[plan.example] ??= hash;
  if (plan.fees === "legacy") scenario.examples.legacyTransaction ??= hash;
  if (plan.fees === "accessList") scenario.examples.accessListTransaction ??= hash;
  return hash;
}

function transactionRequest(plan: PlannedTransaction): TransactionRequest {
  const { from, to, data, value, gas } = plan;
  const request = { from, to, data, value, gas };
  // Well above anvil's base fee (1 gwei at genesis, falling while blocks stay under the gas target).
  switch (plan.fees ?? "nodeDefault") {
    case "legacy":
      return { ...request, type: "legacy", gasPrice: parseGwei("3") };
    case "accessList":
      return { ...request, type: "eip2930", gasPrice: parseGwei("2.5"), accessList: [] };
    case "eip1559":
      return {
        ...request,
        type: "eip1559",
        maxFeePerGas: parseGwei("20"),
        maxPriorityFeePerGas: parseGwei("1.5"),
      };
    case "nodeDefault":
      return request;
  }
}

/** Waits for the transaction's receipt and checks that it succeeded or failed as planned. */
async function receiptOf(
  scenario: Scenario,
  plan: PlannedTransaction,
  hash: Hash,
): Promise<TransactionReceipt> {
  const receipt = await waitForReceipt({ publicClient: scenario.publicClient, hash });
  const failed = receipt.status === "reverted";
  if (failed !== (plan.expectFailure ?? false)) {
    const outcome = failed ? "reverted" : "succeeded";
    const target = plan.to ?? "a new contract";
    throw new Error(`demo transaction ${receipt.transactionHash} to ${target} ${outcome} unexpectedly`);
  }
  if (failed) scenario.failedTransactionHashes.push(receipt.transactionHash);
  return receipt;
}
