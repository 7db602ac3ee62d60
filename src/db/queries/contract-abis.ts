import type { Abi, Address } from "viem";
import type { Queryable } from "../client.ts";
import { byteaText } from "../table-rows.ts";
import { hexColumn } from "./keyset.ts";

/**
 * SQL joining `alias` (`proxy_type`, `implementation`) to the current proxy state of the bytea address
 * `address`: its latest `proxies` row, unless that says it is no proxy. A beacon proxy follows its
 * beacon: when the beacon's own latest row is newer than the proxy's, the beacon's implementation wins.
 */
export function currentProxyJoin(address: string, alias: string): string {
  return `LEFT JOIN LATERAL (
    SELECT latest.proxy_type, COALESCE(beacon.implementation, latest.implementation) AS implementation
    FROM (SELECT proxy_type, implementation, beacon, block_number FROM proxies
          WHERE address = ${address} ORDER BY block_number DESC LIMIT 1) latest
    LEFT JOIN LATERAL (SELECT implementation FROM proxies
          WHERE address = latest.beacon AND block_number > latest.block_number
          ORDER BY block_number DESC LIMIT 1) beacon ON true
    WHERE latest.proxy_type IS NOT NULL) ${alias} ON true`;
}

/** The ABI to decode an address's calls and logs with. */
export type ContractAbi = {
  abi: Abi;
  /** The contract name of the ABI's own address. */
  name: string | null;
  /** Lowercase address the ABI was imported for: the address itself, or its proxy implementation. */
  abiAddress: Address;
};

export type FindContractAbisReturnType = Map<Address, ContractAbi>;

/**
 * For each address (lowercase hex), the imported ABI to decode its calls and logs with: its own, else its
 * current proxy implementation's. Addresses with neither are absent. One query for all.
 */
export async function findContractAbis(
  db: Queryable,
  addresses: Iterable<string>,
): Promise<FindContractAbisReturnType> {
  const unique = [...new Set(addresses)];
  if (unique.length === 0) return new Map();
  const rows = await db.query<{ address: Address; abi_address: Address; abi: Abi; name: string | null }>(
    `SELECT ${hexColumn("q.hash", "address")}, ${hexColumn("c.address", "abi_address")}, c.abi, c.name
     FROM unnest($1::text[]::bytea[]) AS q(hash)
     ${currentProxyJoin("q.hash", "proxy")}
     JOIN contract_abis c ON c.address = CASE
       WHEN EXISTS (SELECT 1 FROM contract_abis own WHERE own.address = q.hash) THEN q.hash
       ELSE proxy.implementation END`,
    [unique.map((address) => byteaText(address))],
  );
  return new Map(
    rows.map((row) => [row.address, { abi: row.abi, name: row.name, abiAddress: row.abi_address }]),
  );
}
