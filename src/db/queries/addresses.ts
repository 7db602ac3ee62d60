import type { Address } from "viem";
import type { ProxyType } from "../../indexer/detect-proxies.ts";
import type { Queryable } from "../client.ts";
import { byteaText } from "../table-rows.ts";
import { currentProxyJoin } from "./contract-abis.ts";
import { createParameters, hexColumn } from "./keyset.ts";
import type { TransactionLogRange } from "./of-transactions.ts";
import { transferPartiesOf } from "./token-transfers.ts";

export type AddressInfo = {
  is_contract: boolean;
  /** An imported ABI is known for the address itself. */
  is_verified: boolean;
  /** Its imported contract name. */
  name: string | null;
  proxy_type: ProxyType | null;
  /** Lowercase implementations of a proxy, with their imported contract names; `[]` for no proxy. */
  implementations: { address: Address; name: string | null }[];
  /** The token standard of a token contract (`ERC-20`, ...), else null. */
  token_type: string | null;
};

export type FindAddressesReturnType = Map<string, AddressInfo>;

export type FindAddressesOptions = {
  /**
   * Also the parties of these transactions' first `perTransaction` token transfers (a transaction list's
   * preview): found in the same statement, not in one that waits for the transfers.
   */
  transfersOf?: { transactions: readonly TransactionLogRange[]; perTransaction: number };
};

/**
 * What is known of each address, keyed by lowercase hex: seen on chain, imported ABI and contract name,
 * current proxy state and its implementation's name. Addresses known in none of these are absent. One
 * query for all the addresses of a page.
 */
export async function findAddresses(
  db: Queryable,
  hashes: Iterable<string>,
  { transfersOf }: FindAddressesOptions = {},
): Promise<FindAddressesReturnType> {
  const unique = [...new Set(hashes)];
  const { params, bind } = createParameters();
  const listed = `SELECT unnest(${bind(unique.map((hash) => byteaText(hash)))}::text[]::bytea[])`;
  const parties =
    transfersOf && transferPartiesOf(transfersOf.transactions, transfersOf.perTransaction, bind);
  if (unique.length === 0 && !parties) return new Map();
  const rows = await db.query<{
    hash: string;
    is_contract: boolean | null;
    verified: boolean;
    name: string | null;
    proxy_type: ProxyType | null;
    implementation: Address | null;
    implementation_name: string | null;
    token_type: string | null;
  }>(
    `SELECT ${hexColumn("q.hash", "hash")}, a.is_contract, own.address IS NOT NULL AS verified, own.name,
       proxy.proxy_type, ${hexColumn("proxy.implementation", "implementation")}, impl.name AS implementation_name,
       k.type AS token_type
     FROM (${parties ? `${listed} UNION ${parties}` : listed}) AS q(hash)
     LEFT JOIN addresses a ON a.hash = q.hash
     LEFT JOIN contract_abis own ON own.address = q.hash
     ${currentProxyJoin("q.hash", "proxy")}
     LEFT JOIN contract_abis impl ON impl.address = proxy.implementation
     LEFT JOIN tokens k ON k.address = q.hash
     WHERE a.hash IS NOT NULL OR own.address IS NOT NULL OR proxy.proxy_type IS NOT NULL`,
    params,
  );
  return new Map(
    rows.map((row) => [
      row.hash,
      {
        is_contract: row.is_contract ?? false,
        is_verified: row.verified,
        name: row.name,
        proxy_type: row.proxy_type,
        implementations: row.implementation
          ? [{ address: row.implementation, name: row.implementation_name }]
          : [],
        token_type: row.token_type,
      },
    ]),
  );
}
