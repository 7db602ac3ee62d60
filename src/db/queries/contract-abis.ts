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
  /** The address's own imported ABI followed by its proxy implementation's, so both are tried in turn. */
  abi: Abi;
  /** The contract name of the address's own ABI, else its implementation's. */
  name: string | null;
};

export type FindContractAbisReturnType = Map<Address, ContractAbi>;

/**
 * For each address (lowercase hex), the imported ABIs to decode its calls and logs with: its own (a
 * verified proxy's, say), then its current proxy implementation's. Addresses with neither are absent.
 * One query for all.
 */
export async function findContractAbis(
  db: Queryable,
  addresses: Iterable<string>,
): Promise<FindContractAbisReturnType> {
  const unique = [...new Set(addresses)];
  if (unique.length === 0) return new Map();
  const rows = await db.query<{
    address: Address;
    own_abi: Abi | null;
    own_name: string | null;
    implementation_abi: Abi | null;
    implementation_name: string | null;
  }>(
    `SELECT ${hexColumn("q.hash", "address")}, own.abi AS own_abi, own.name AS own_name,
       implementation.abi AS implementation_abi, implementation.name AS implementation_name
     FROM unnest($1::text[]::bytea[]) AS q(hash)
     ${currentProxyJoin("q.hash", "proxy")}
     LEFT JOIN contract_abis own ON own.address = q.hash
     LEFT JOIN contract_abis implementation ON implementation.address = proxy.implementation
     WHERE own.address IS NOT NULL OR implementation.address IS NOT NULL`,
    [unique.map((address) => byteaText(address))],
  );
  return new Map(
    rows.map((row) => [
      row.address,
      {
        abi: [...(row.own_abi ?? []), ...(row.implementation_abi ?? [])],
        name: row.own_name ?? row.implementation_name,
      },
    ]),
  );
}
