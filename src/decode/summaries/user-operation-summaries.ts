import {
  addressVariable,
  type Entry,
  type SummarizeTransactionParameters,
  summaries,
  type TransactionSummary,
  text,
} from "./summary.ts";

/**
 * An ERC-4337 bundle, then each user operation it carried with its outcome; a transaction that reached
 * several entry points (a contract relaying bundles to v0.6 and v0.7) tells one bundle per entry point,
 * in the order their operations ran.
 */
export function userOperationSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const byEntryPoint = new Map<string, SummarizeTransactionParameters["userOperations"]>();
  for (const operation of parameters.userOperations) {
    const bundle = byEntryPoint.get(operation.entry_point);
    if (bundle) bundle.push(operation);
    else byEntryPoint.set(operation.entry_point, [operation]);
  }
  return summaries(
    [...byEntryPoint].flatMap(([entryPoint, operations]): Entry[] => [
      [
        "{action_type} {operations} through {entry_point}",
        {
          action_type: text("Bundle"),
          operations: text(`${operations.length} user operation${operations.length === 1 ? "" : "s"}`),
          entry_point: addressVariable(entryPoint),
        },
      ],
      ...operations.map(
        (operation): Entry => [
          "{action_type} user operation {user_operation} of {sender}",
          {
            action_type: text(operation.success ? "Executed" : "Failed"),
            user_operation: text(operation.hash),
            sender: addressVariable(operation.sender),
          },
        ],
      ),
    ]),
  );
}
