import { formatUnits } from "viem";
import type { TransactionAction } from "../actions/transaction-action.ts";

/**
 * One variable of a summary template; every value is non-null. Addresses and tokens are lowercase hex
 * here; the API renders them into address and token objects.
 */
export type SummaryVariable = { type: "string" | "currency" | "method" | "address" | "token"; value: string };

/** A summary in the interpreter's form: a template with `{name}` placeholders and its variables. */
export type TransactionSummary = {
  summary_template: string;
  summary_template_variables: Record<string, SummaryVariable>;
};

/** What the interpreter reads of a token transfer (lowercase hex addresses, decimal amounts). */
export type SummaryTokenTransfer = {
  token_address: string;
  from_address: string;
  to_address: string;
  token_type: string;
  token_id: string | null;
  amount: string | null;
};

/** What the interpreter reads of a successful transaction; addresses lowercase hex. */
export type SummarizeTransactionParameters = {
  transaction: {
    from_address: string;
    to_address: string | null;
    created_contract: string | null;
    value: string;
    input: string;
  };
  /** `to` has code. */
  toIsContract: boolean;
  /** The called function's name as decoded, else its selector; null without input. */
  method: string | null;
  tokenTransfers: SummaryTokenTransfer[];
  /**
   * The transaction's inner calls that created a contract or sent value back to its sender, lowercase hex, in
   * their order; the first `summarizedInnerEffects` of each kind are told.
   */
  innerEffects: {
    from_address: string;
    to_address: string | null;
    created_contract: string | null;
    value: string;
  }[];
  /** The transaction's logs; only WETH-style `Deposit` and `Withdrawal` events are read (`wrapTopics`). */
  logs: { address: string; topics: string[]; data: string }[];
  actions: TransactionAction[];
  userOperations: { hash: string; sender: string; success: boolean; entry_point: string }[];
  /** The known tokens among the contracts involved, by lowercase hex address. */
  tokens: Map<string, { type: string; decimals: number | null }>;
  /** The chain's native currency symbol. */
  nativeSymbol: string;
};

/**
 * Contracts created by inner calls, and payments back to the sender, told one by one, at most this many of
 * each: a factory's transaction that created thousands is told by its first ones.
 */
export const summarizedInnerEffects = 10;

export type Variables = Record<string, SummaryVariable | null>;
/** A template with its variables, any of which may be missing. */
export type Entry = [template: string, variables: Variables];

/** A variable can be missing (a token not indexed); a summary is only given with all of its variables. */
export function complete(variables: Variables): variables is Record<string, SummaryVariable> {
  return Object.values(variables).every((variable) => variable !== null);
}

/** A `string` variable. */
export function text(value: string) {
  return { type: "string" as const, value };
}

/** A `currency` variable: a decimal amount in whole units. */
export function currency(value: string) {
  return { type: "currency" as const, value };
}

/** A `token` variable, or null when the contract is not a known token. */
export function tokenVariable(parameters: SummarizeTransactionParameters, hash: string) {
  return parameters.tokens.has(hash) ? { type: "token" as const, value: hash } : null;
}

/** An `address` variable. */
export function addressVariable(hash: string) {
  return { type: "address" as const, value: hash };
}

/** An amount in whole tokens; as it is when the token's decimals are unknown. */
export function tokenAmount(amount: string, decimals: number | null): string {
  return decimals === null ? amount : formatUnits(BigInt(amount), decimals);
}

/** The summaries of the entries whose variables are all known. */
export function summaries(list: Entry[]): TransactionSummary[] {
  return list.flatMap(([template, variables]) =>
    complete(variables) ? [{ summary_template: template, summary_template_variables: variables }] : [],
  );
}
