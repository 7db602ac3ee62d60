import {
  addressVariable,
  type Entry,
  type SummarizeTransactionParameters,
  summaries,
  type TransactionSummary,
  text,
} from "./summary.ts";

/** An ERC-4337 bundle, then each user operation it carried with its outcome. */
export function userOperationSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { userOperations } = parameters;
  const [first] = userOperations;
  if (first === undefined) return [];
  const count = userOperations.length;
  return summaries([
    [
      "{action_type} {operations} through {entry_point}",
      {
        action_type: text("Bundle"),
        operations: text(`${count} user operation${count === 1 ? "" : "s"}`),
        entry_point: addressVariable(first.entry_point),
      },
    ],
    ...userOperations.map(
      (operation): Entry => [
        "{action_type} user operation {user_operation} of {sender}",
        {
          action_type: text(operation.success ? "Executed" : "Failed"),
          user_operation: text(operation.hash),
          sender: addressVariable(operation.sender),
        },
      ],
    ),
  ]);
}
