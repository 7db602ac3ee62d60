import {
  type AbiEvent,
  decodeEventLog,
  decodeFunctionData,
  erc20Abi,
  erc721Abi,
  formatEther,
  formatUnits,
  getAbiItem,
  type Hex,
  maxUint256,
  toEventSelector,
  zeroAddress,
} from "viem";
import type { TransactionAction } from "./actions/transaction-action.ts";
import { weth9Abi } from "./builtin-abis.ts";

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
  /** The transaction's inner calls that moved value or created a contract, lowercase hex. */
  innerEffects: {
    from_address: string;
    to_address: string | null;
    created_contract: string | null;
    value: string;
  }[];
  logs: { address: string; topics: string[]; data: string }[];
  actions: TransactionAction[];
  userOperations: { hash: string; sender: string; success: boolean; entry_point: string }[];
  /** The known tokens among the contracts involved, by lowercase hex address. */
  tokens: Map<string, { type: string; decimals: number | null }>;
  /** The chain's native currency symbol. */
  nativeSymbol: string;
};

const wethDeposit = toEventSelector(getAbiItem({ abi: weth9Abi, name: "Deposit" }) as AbiEvent);
const wethWithdrawal = toEventSelector(getAbiItem({ abi: weth9Abi, name: "Withdrawal" }) as AbiEvent);
const protocolNames = { uniswap_v3: "Uniswap V3", aave_v3: "Aave V3" } as const;
/** Token transfers told one by one; a transaction that moved more is told by its first ones. */
export const summarizedTransfers = 10;

/**
 * The summaries of a successful transaction, by rules over what it did: its protocol actions, ERC-4337
 * bundle, wraps, approvals, token and native transfers, contract creation, and as a fallback the call it
 * made. Movements a protocol action already tells (a swap's token transfers) are not told twice.
 */
export function summarizeTransaction(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { transaction, toIsContract, method } = parameters;
  const to = transaction.to_address;
  const created = transaction.created_contract;
  const value = BigInt(transaction.value);
  const result = summaries([
    ...(value > 0n && to !== null && !isWrap(parameters)
      ? [nativeTransfer(parameters, formatEther(value), to)]
      : []),
    ...(created === null ? [] : [creation(parameters, created)]),
  ]);
  result.push(...userOperationSummaries(parameters));
  // Contracts created by the transaction's inner calls (a factory's clone, a pool, a user's account).
  result.push(
    ...summaries(
      parameters.innerEffects.flatMap((effect) =>
        effect.created_contract === null ? [] : [creation(parameters, effect.created_contract)],
      ),
    ),
  );
  const told = [
    ...actionSummaries(parameters),
    ...wrapSummaries(parameters),
    ...approvalSummaries(parameters),
  ];
  result.push(...told);
  if (told.length === 0) result.push(...transferSummaries(parameters));
  if (result.length === 0) result.push(...receivedValueSummaries(parameters));
  if (result.length === 0 && to !== null) {
    result.push(
      ...summaries([
        toIsContract
          ? [
              "Called {method} on {to_address}",
              {
                method: { type: "method", value: method ?? "fallback" },
                to_address: addressVariable(to),
              },
            ]
          : nativeTransfer(parameters, "0", to),
      ]),
    );
  }
  return result;
}

type Variables = Record<string, SummaryVariable | null>;
type Entry = [template: string, variables: Variables];

function creation(parameters: SummarizeTransactionParameters, created: string): Entry {
  const contract = addressVariable(created);
  return parameters.tokens.has(created)
    ? [
        "{action_type} {token} at {contract_address}",
        {
          action_type: text("Deploy token"),
          token: tokenVariable(parameters, created),
          contract_address: contract,
        },
      ]
    : [
        "{action_type} {contract_address}",
        { action_type: text("Deploy contract"), contract_address: contract },
      ];
}

function nativeTransfer(parameters: SummarizeTransactionParameters, amount: string, to: string): Entry {
  return [
    "{action_type} {amount} {native} to {to_address}",
    {
      action_type: text("Transfer"),
      amount: currency(amount),
      native: text(parameters.nativeSymbol),
      to_address: addressVariable(to),
    },
  ];
}

/** A variable can be missing (a token not indexed); a summary is only given with all of its variables. */
function complete(variables: Variables): variables is Record<string, SummaryVariable> {
  return Object.values(variables).every((variable) => variable !== null);
}

function text(value: string) {
  return { type: "string" as const, value };
}

function currency(value: string) {
  return { type: "currency" as const, value };
}

function tokenVariable(parameters: SummarizeTransactionParameters, hash: string) {
  return parameters.tokens.has(hash) ? { type: "token" as const, value: hash } : null;
}

function addressVariable(hash: string) {
  return { type: "address" as const, value: hash };
}

function tokenAmount(amount: string, decimals: number | null): string {
  return decimals === null ? amount : formatUnits(BigInt(amount), decimals);
}

function summaries(list: Entry[]): TransactionSummary[] {
  return list.flatMap(([template, variables]) =>
    complete(variables) ? [{ summary_template: template, summary_template_variables: variables }] : [],
  );
}

function actionSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  return summaries(
    parameters.actions.flatMap(({ protocol, type, data }): Entry[] => {
      const dex = text(protocolNames[protocol]);
      const token = (key: string) => tokenVariable(parameters, String(data[key]).toLowerCase());
      const amount = (key: string) => currency(String(data[key]));
      const pair = (action: string, preposition: string): Entry => [
        `{action_type} {amount0} {token0} and {amount1} {token1} ${preposition} {protocol}`,
        {
          action_type: text(action),
          amount0: amount("amount0"),
          token0: token("address0"),
          amount1: amount("amount1"),
          token1: token("address1"),
          protocol: dex,
        },
      ];
      const single = (action: string, preposition: string): Entry => [
        `{action_type} {amount} {token} ${preposition} {protocol}`,
        { action_type: text(action), amount: amount("amount"), token: token("address"), protocol: dex },
      ];
      switch (`${protocol}/${type}`) {
        case "uniswap_v3/swap":
          return [
            [
              "{action_type} {amount_in} {token_in} for {amount_out} {token_out} on {protocol}",
              {
                action_type: text("Swap"),
                amount_in: amount("amount0"),
                token_in: token("address0"),
                amount_out: amount("amount1"),
                token_out: token("address1"),
                protocol: dex,
              },
            ],
          ];
        case "uniswap_v3/mint":
          return [pair("Add liquidity", "to")];
        case "uniswap_v3/burn":
          return [pair("Remove liquidity", "from")];
        case "uniswap_v3/collect":
          return [pair("Collect", "from")];
        case "uniswap_v3/mint_nft":
          return [
            [
              "{action_type} {token} #{token_ids} to {to_address}",
              {
                action_type: text("Mint position"),
                token: token("address"),
                token_ids: text((data.ids as string[]).join(", #")),
                to_address: addressVariable(String(data.to).toLowerCase()),
              },
            ],
          ];
        case "aave_v3/supply":
          return [single("Supply", "to")];
        case "aave_v3/withdraw":
          return [single("Withdraw", "from")];
        case "aave_v3/borrow":
          return [single("Borrow", "from")];
        case "aave_v3/repay":
          return [single("Repay", "to")];
        case "aave_v3/flash_loan":
          return [single("Flash loan", "from")];
        case "aave_v3/enable_collateral":
        case "aave_v3/disable_collateral":
          return [
            [
              "{action_type} {token} as collateral on {protocol}",
              {
                action_type: text(type === "enable_collateral" ? "Enable" : "Disable"),
                token: token("address"),
                protocol: dex,
              },
            ],
          ];
        case "aave_v3/liquidation_call":
          return [
            [
              "{action_type} {debt_amount} {debt_token} of debt for {collateral_amount} {collateral_token} on {protocol}",
              {
                action_type: text("Liquidate"),
                debt_amount: amount("debt_amount"),
                debt_token: token("debt_address"),
                collateral_amount: amount("collateral_amount"),
                collateral_token: token("collateral_address"),
                protocol: dex,
              },
            ],
          ];
        default:
          return [];
      }
    }),
  );
}

function isWrap({ transaction, logs }: SummarizeTransactionParameters): boolean {
  return logs.some((log) => log.address === transaction.to_address && isWrapTopic(log.topics[0]));
}

function wrapSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { transaction, logs, nativeSymbol } = parameters;
  return summaries(
    logs
      .filter((log) => log.address === transaction.to_address && isWrapTopic(log.topics[0]))
      .flatMap((log): Entry[] => {
        let wad: bigint;
        try {
          const event = decodeEventLog({ abi: weth9Abi, topics: log.topics as [Hex], data: log.data as Hex });
          wad = (event.args as unknown as { wad: bigint }).wad;
        } catch {
          // Another contract's event under the same topic, with another layout.
          return [];
        }
        const amount = currency(formatEther(wad));
        // A wrapper that never moved a token (only deposits and withdrawals) is not a known token yet.
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
  return topic === wethDeposit || topic === wethWithdrawal;
}

function approvalSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { transaction } = parameters;
  if (transaction.to_address === null) return [];
  const token = parameters.tokens.get(transaction.to_address);
  if (token === undefined) return [];
  const tokenValue = { type: "token" as const, value: transaction.to_address };
  let call: ReturnType<typeof decodeFunctionData<typeof erc20Abi | typeof erc721Abi>>;
  try {
    call = decodeFunctionData({ abi: [...erc20Abi, ...erc721Abi], data: transaction.input as Hex });
  } catch {
    return [];
  }
  const [first, second] = call.args as [string, bigint | boolean];
  const who = addressVariable(String(first).toLowerCase());
  if (call.functionName === "setApprovalForAll") {
    return summaries([
      second
        ? [
            "{action_type} {operator} to move all of your {token}",
            { action_type: text("Approve"), operator: who, token: tokenValue },
          ]
        : [
            "{action_type} approval of {operator} for {token}",
            { action_type: text("Revoke"), operator: who, token: tokenValue },
          ],
    ]);
  }
  if (call.functionName !== "approve") return [];
  const value = second as bigint;
  const nonFungible = token.type === "ERC-721";
  if (nonFungible && (first as string).toLowerCase() === zeroAddress) {
    return summaries([
      [
        "{action_type} approval for {token} #{token_id}",
        { action_type: text("Revoke"), token: tokenValue, token_id: text(value.toString()) },
      ],
    ]);
  }
  if (nonFungible) {
    return summaries([
      [
        "{action_type} {spender} to move {token} #{token_id}",
        { action_type: text("Approve"), spender: who, token: tokenValue, token_id: text(value.toString()) },
      ],
    ]);
  }
  if (value === 0n) {
    return summaries([
      [
        "{action_type} approval of {spender} for {token}",
        { action_type: text("Revoke"), spender: who, token: tokenValue },
      ],
    ]);
  }
  return summaries([
    [
      "{action_type} {spender} to spend {amount} {token}",
      {
        action_type: text("Approve"),
        spender: who,
        amount:
          value === maxUint256 ? text("unlimited") : currency(tokenAmount(value.toString(), token.decimals)),
        token: tokenValue,
      },
    ],
  ]);
}

function transferSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  return summaries(
    parameters.tokenTransfers.slice(0, summarizedTransfers).map((transfer): Entry => {
      const token = tokenVariable(parameters, transfer.token_address);
      const decimals = parameters.tokens.get(transfer.token_address)?.decimals ?? null;
      const minted = transfer.from_address === zeroAddress;
      const burnt = transfer.to_address === zeroAddress;
      const action = text(minted ? "Mint" : burnt ? "Burn" : "Transfer");
      const direction = minted
        ? "to {to_address}"
        : burnt
          ? "from {from_address}"
          : "from {from_address} to {to_address}";
      const parties = {
        ...(minted ? {} : { from_address: addressVariable(transfer.from_address) }),
        ...(burnt ? {} : { to_address: addressVariable(transfer.to_address) }),
      };
      if (transfer.token_id === null) {
        return [
          `{action_type} {amount} {token} ${direction}`,
          {
            action_type: action,
            amount: currency(tokenAmount(transfer.amount ?? "0", decimals)),
            token,
            ...parties,
          },
        ];
      }
      if (transfer.token_type === "ERC-721") {
        return [
          `{action_type} {token} #{token_id} ${direction}`,
          { action_type: action, token, token_id: text(transfer.token_id), ...parties },
        ];
      }
      return [
        `{action_type} {amount} {token} #{token_id} ${direction}`,
        {
          action_type: action,
          amount: currency(transfer.amount ?? "1"),
          token,
          token_id: text(transfer.token_id),
          ...parties,
        },
      ];
    }),
  );
}

function userOperationSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { userOperations } = parameters;
  if (userOperations.length === 0) return [];
  const count = userOperations.length;
  return summaries([
    [
      "{action_type} {operations} through {entry_point}",
      {
        action_type: text("Bundle"),
        operations: text(`${count} user operation${count === 1 ? "" : "s"}`),
        entry_point: addressVariable(userOperations[0].entry_point),
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

function receivedValueSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { transaction, innerEffects, nativeSymbol } = parameters;
  return summaries(
    innerEffects
      .filter((effect) => effect.to_address === transaction.from_address && BigInt(effect.value) > 0n)
      .map(
        (effect): Entry => [
          "{action_type} {amount} {native} from {from_address}",
          {
            action_type: text("Receive"),
            amount: currency(formatEther(BigInt(effect.value))),
            native: text(nativeSymbol),
            from_address: addressVariable(effect.from_address),
          },
        ],
      ),
  );
}
