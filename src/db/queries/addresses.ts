import type { Abi, Address } from "viem";
import type { ProxyType } from "../../indexer/detect-proxies.ts";
import type { Queryable } from "../client.ts";
import { byteaText } from "../table-rows.ts";
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
  /**
   * Lowercase implementations of a proxy, with their imported contract names and whether an ABI is imported
   * for them; `[]` for no proxy.
   */
  implementations: { address: Address; name: string | null; is_verified: boolean }[];
  /** The token standard of a token contract (`ERC-20`, ...), else null. */
  token_type: string | null;
  /**
   * For an address asked `withAbis`, the ABI to decode its calls and logs with: its own imported ABI
   * followed by its proxy implementation's, so both are tried in turn. Null otherwise or when it has none.
   */
  abi: Abi | null;
};

export type FindAddressesReturnType = Map<string, AddressInfo>;

export type FindAddressesOptions = {
  /**
   * Also the parties of these transactions' first `perTransaction` token transfers (a transaction list's
   * preview): found in the same statement, not in one that waits for the transfers.
   */
  transfersOf?: { transactions: readonly TransactionLogRange[]; perTransaction: number };
  /**
   * Addresses whose imported ABIs come with them as `abi` (their own, then their current proxy
   * implementation's), to decode the calls and logs of a page: read by the joins this statement already
   * makes rather than by a statement of their own.
   */
  withAbis?: Iterable<string>;
};

/**
 * SQL joining `alias` (`proxy_type`, `implementation`) to the current proxy state of the bytea address
 * `address`: its latest `proxies` row, unless that says it is no proxy. A beacon proxy follows its
 * beacon: when the beacon's own latest row is newer than the proxy's, the beacon's implementation wins.
 */
function currentProxyJoin(address: string, alias: string): string {
  return `LEFT JOIN LATERAL (
    SELECT latest.proxy_type, COALESCE(beacon.implementation, latest.implementation) AS implementation
    FROM (SELECT proxy_type, implementation, beacon, block_number FROM proxies
          WHERE address = ${address} ORDER BY block_number DESC LIMIT 1) latest
    LEFT JOIN LATERAL (SELECT implementation FROM proxies
          WHERE address = latest.beacon AND block_number > latest.block_number
          ORDER BY block_number DESC LIMIT 1) beacon ON true
    WHERE latest.proxy_type IS NOT NULL) ${alias} ON true`;
}

/**
 * What is known of each address, keyed by lowercase hex: seen on chain, imported ABI and contract name,
 * current proxy state and its implementation's name, and the ABIs of those asked `withAbis`. Addresses
 * known in none of these are absent. One query for all the addresses of a page, whose plan, a lookup by key
 * in each table for each address, is kept for any values: planned for the few addresses of a small page, it
 * cost as much as running it.
 */
export async function findAddresses(
  db: Queryable,
  hashes: Iterable<string>,
  { transfersOf, withAbis = [] }: FindAddressesOptions = {},
): Promise<FindAddressesReturnType> {
  const abisOf = [...new Set(withAbis)];
  const unique = [...new Set([...hashes, ...abisOf])];
  const { params, bind } = createParameters();
  const listed = `SELECT unnest(${bind(unique.map((hash) => byteaText(hash)))}::text[]::bytea[])`;
  const parties =
    transfersOf && transferPartiesOf(transfersOf.transactions, transfersOf.perTransaction, bind);
  if (unique.length === 0 && !parties) return new Map();
  // Only the addresses asked: an ABI is parsed from JSON, and a page names many addresses it decodes nothing of.
  const asked =
    abisOf.length === 0
      ? ""
      : `q.hash = ANY(${bind(abisOf.map((hash) => byteaText(hash)))}::text[]::bytea[])`;
  // Which import of each ABI, not the ABI: the ABIs come from the cache, and only those it lacks are read.
  const abiColumns =
    asked === ""
      ? ""
      : `, CASE WHEN ${asked} THEN ${abiVersion("own")} END AS own_import,
       CASE WHEN ${asked} THEN ${abiVersion("impl")} END AS implementation_import`;
  const rows = await db.query<{
    hash: string;
    is_contract: boolean | null;
    verified: boolean;
    name: string | null;
    proxy_type: ProxyType | null;
    implementation: Address | null;
    implementation_name: string | null;
    implementation_verified: boolean;
    token_type: string | null;
    own_import?: string | null;
    implementation_import?: string | null;
  }>(
    `SELECT ${hexColumn("q.hash", "hash")}, a.is_contract, own.address IS NOT NULL AS verified, own.name,
       proxy.proxy_type, ${hexColumn("proxy.implementation", "implementation")}, impl.name AS implementation_name,
       impl.address IS NOT NULL AS implementation_verified, k.type AS token_type${abiColumns}
     FROM (${parties ? `${listed} UNION ${parties}` : listed}) AS q(hash)
     LEFT JOIN addresses a ON a.hash = q.hash
     LEFT JOIN contract_abis own ON own.address = q.hash
     ${currentProxyJoin("q.hash", "proxy")}
     LEFT JOIN contract_abis impl ON impl.address = proxy.implementation
     LEFT JOIN tokens k ON k.address = q.hash
     WHERE a.hash IS NOT NULL OR own.address IS NOT NULL OR proxy.proxy_type IS NOT NULL`,
    params,
    { genericPlan: true },
  );
  const abis = await readAbis(
    db,
    rows.flatMap((row) => [
      ...(row.own_import ? [{ address: row.hash, imported: row.own_import }] : []),
      ...(row.implementation && row.implementation_import
        ? [{ address: row.implementation, imported: row.implementation_import }]
        : []),
    ]),
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
          ? [
              {
                address: row.implementation,
                name: row.implementation_name,
                is_verified: row.implementation_verified,
              },
            ]
          : [],
        token_type: row.token_type,
        abi: joinAbis(
          row.own_import ? abis.get(row.hash) : undefined,
          row.implementation && row.implementation_import ? abis.get(row.implementation) : undefined,
        ),
      },
    ]),
  );
}

/**
 * Which import of a `contract_abis` row: its time, its size (read from the value's header alone) and where
 * the row version lies, which every update moves: `now()` is its transaction's time, and PGlite's clock
 * ticks by the millisecond.
 */
function abiVersion(alias: string): string {
  return `${alias}.imported_at::text || '/' || pg_column_size(${alias}.abi) || '/' || ${alias}.ctid::text`;
}

/**
 * Imported ABIs by `<address>@<version>` ({@link abiVersion}), parsed, and the joins of an address's own
 * ABI with its implementation's by both keys: kept across pages, and the same objects each time, so that
 * decoding indexes each once. An ABI of hundreds of entries cost milliseconds a page to read, parse and
 * index, and a page's contracts are mostly the last page's. A re-import is another version, another key.
 */
const abiCache = new Map<string, Abi>();
/** ABIs kept, a few pages' worth (324 entries parsed take 84 KB); past this the oldest kept goes. */
const abiCacheLimit = 500;
/** The key each cached ABI object was kept under. */
const abiKeys = new WeakMap<Abi, string>();

function cacheAbi(key: string, abi: Abi): Abi {
  abiCache.set(key, abi);
  abiKeys.set(abi, key);
  if (abiCache.size > abiCacheLimit) abiCache.delete(abiCache.keys().next().value as string);
  return abi;
}

/** The ABIs of these imports by address, from the cache or, for those it lacks, read in one statement. */
async function readAbis(
  db: Queryable,
  imports: { address: string; imported: string }[],
): Promise<Map<string, Abi>> {
  const found = new Map<string, Abi>();
  const missing: string[] = [];
  for (const { address, imported } of imports) {
    const cached = abiCache.get(`${address}@${imported}`);
    if (cached) found.set(address, cached);
    else missing.push(address);
  }
  if (missing.length === 0) return found;
  const read = await db.query<{ address: string; imported: string; abi: Abi }>(
    `SELECT ${hexColumn("c.address", "address")}, ${abiVersion("c")} AS imported, c.abi FROM contract_abis c
     WHERE c.address = ANY($1::text[]::bytea[])`,
    [[...new Set(missing)].map((hash) => byteaText(hash))],
  );
  // Read now, a re-import since the first statement is taken as it is.
  for (const { address, imported, abi } of read) found.set(address, cacheAbi(`${address}@${imported}`, abi));
  return found;
}

/** An address's own ABI followed by its implementation's, the same object for the same two. */
function joinAbis(own: Abi | undefined, implementation: Abi | undefined): Abi | null {
  if (!own || !implementation) return own ?? implementation ?? null;
  const key = `${abiKeys.get(own)}+${abiKeys.get(implementation)}`;
  return abiCache.get(key) ?? cacheAbi(key, [...own, ...implementation]);
}
