import { decodeEventLog, formatEther, getAbiItem, type Hex, toEventSelector } from "viem";
import { weth9Abi } from "../builtin-abis.ts";
import {
  addressVariable,
  currency,
  type Entry,
  type SummarizeTransactionParameters,
  summaries,
  type TransactionSummary,
  text,
  tokenVariable,
} from "./summary.ts";

const wethDeposit = toEventSelector(getAbiItem({ abi: weth9Abi, name: "Deposit" }));
const wethWithdrawal = toEventSelector(getAbiItem({ abi: weth9Abi, name: "Withdrawal" }));

/** The first topics of the events a wrap is told from: the only logs a summary needs. */
export const wrapTopics = [wethDeposit, wethWithdrawal];

/** The called contract reported a WETH-style deposit or withdrawal. */
export function isWrap({ transaction, logs }: SummarizeTransactionParameters): boolean {
  return logs.some((log) => log.address === transaction.to_address && isWrapTopic(log.topics[0]));
}

/** Wraps and unwraps of the native currency, from the wrapper's `Deposit` and `Withdrawal` events. */
export function wrapSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { transaction, logs, nativeSymbol } = parameters;
  return summaries(
    logs
      .filter((log) => log.address === transaction.to_address && isWrapTopic(log.topics[0]))
      .flatMap((log): Entry[] => {
        let wad: bigint;
        try {
          const event = decodeEventLog({
            abi: weth9Abi,
            topics: log.topics as [Hex, ...Hex[]],
            data: log.data as Hex,
          });
          wad = event.args.wad;
        } catch {
          // Another contract's event under the same topic, with another layout.
          return [];
        }
        const amount = currency(formatEther(wad));
        // A wrapper whose Deposit and Withdrawal WHITELISTED_WETH_CONTRACTS leaves out is no known token.
        const token = tokenVariable(parameters, log.address) ?? addressVariable(log.address);
        return log.topics[0] === wethDeposit
          ? [
              [
                "{action_type} {amount} {native} into {token}",
                { action_type: text("Wrap"), amount, native: text(nativeSymbol), token },
              ],
            ]
          : [
              [
                "{action_type} {amount} {token} into {native}",
                { action_type: text("Unwrap"), amount, token, native: text(nativeSymbol) },
              ],
            ];
      }),
  );
}

function isWrapTopic(topic: string | undefined): boolean {
  return wrapTopics.includes(topic as never);
}
