import type { Database } from "../../src/db/client.ts";
import { at } from "./elements.ts";

// The addresses and values the token balance lists are seeded with (see `seedTokenBalances`).
export const holder = "0xc0de20a37e2dac848f81a93bd85fe4acdde7c0de";
export const collector = "0x00000000000000000000000000000000000c011e";
export const two70 = 2n ** 70n;

/** A distinct lowercase address per group and number. */
export const address = (group: number, n: number) =>
  `0x${group.toString(16).padStart(8, "0")}${n.toString(16).padStart(32, "0")}`;

type TokenSeed = [address: string, type: string, name: string | null];
type BalanceSeed = [token: string, id: bigint | number, holder: string, value: bigint | number];
type InstanceSeed = [token: string, id: bigint | number, metadata: unknown, error: string | null];

async function insertTokens(db: Database, tokens: TokenSeed[]) {
  await db.query(
    `INSERT INTO tokens (address, type, name, symbol, decimals, total_supply, first_seen_block, read_at_block)
     SELECT decode(substr(a, 3), 'hex'), t, n, 'SYM', CASE WHEN t = 'ERC-20' THEN 18 END, 1000000, 1, 1
     FROM unnest($1::text[], $2::text[], $3::text[]) AS u(a, t, n)`,
    [tokens.map((t) => t[0]), tokens.map((t) => t[1]), tokens.map((t) => t[2])],
  );
}

async function insertBalances(db: Database, balances: BalanceSeed[]) {
  await db.query(
    `INSERT INTO token_balances (token_address, token_id, holder, value, token_contract_type)
     SELECT decode(substr(t, 3), 'hex'), i::numeric, decode(substr(h, 3), 'hex'), v::numeric, k.type
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(t, i, h, v)
     JOIN tokens k ON k.address = decode(substr(t, 3), 'hex')`,
    [0, 1, 2, 3].map((column) => balances.map((row) => String(row[column]))),
  );
  // And what the indexer keeps with them (applyTokenBalanceChanges): holdings of ids, holder counts, and
  // an instance row for every id, with its holders and units.
  await db.query(
    `INSERT INTO token_holders (token_address, holder, ids, ids_value, token_contract_type)
     SELECT token_address, holder, count(*), sum(value), min(token_contract_type) FROM token_balances
     WHERE token_id >= 0 AND value > 0 GROUP BY token_address, holder`,
  );
  await db.query(
    `UPDATE tokens t SET holders_count = (SELECT count(DISTINCT b.holder) FROM token_balances b
                                         WHERE b.token_address = t.address AND b.value > 0)`,
  );
  await db.query(
    `INSERT INTO token_instances (token_address, token_id, first_seen_block, holders, units)
     SELECT token_address, token_id, 1, count(*) FILTER (WHERE value > 0),
       COALESCE(sum(value) FILTER (WHERE value > 0), 0)
     FROM token_balances WHERE token_id >= 0 GROUP BY token_address, token_id`,
  );
}

async function insertInstances(db: Database, instances: InstanceSeed[]) {
  await db.query(
    `INSERT INTO token_instances (token_address, token_id, first_seen_block, metadata, metadata_error)
     SELECT decode(substr(t, 3), 'hex'), i::numeric, 1, m::jsonb, e
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(t, i, m, e)
     ON CONFLICT (token_address, token_id) DO UPDATE
       SET metadata = excluded.metadata, metadata_error = excluded.metadata_error`,
    [
      instances.map((row) => row[0]),
      instances.map((row) => String(row[1])),
      instances.map((row) => (row[2] === null ? null : JSON.stringify(row[2]))),
      instances.map((row) => row[3]),
    ],
  );
}

// Endpoint 1: the holder's 51 rows.
const erc20 = Array.from({ length: 19 }, (_, i) => address(1, i + 1));
export const erc721 = address(2, 1);
const erc1155 = address(3, 1);
const erc404 = address(4, 1);
export const emptyToken = address(5, 1);
// Endpoint 6 and 9.
export const fungible = address(6, 1);
export const multi = address(7, 1);
export const unknownToken = address(8, 1);
/** An ERC-721 whose one id is 0, held by an address of its own. */
export const idZeroToken = address(13, 1);
// Endpoint 11: 50 ERC-721, 50 ERC-1155 and 2 ERC-404 collections.
export const collections721 = Array.from({ length: 50 }, (_, i) => address(9, i + 1));
export const collections1155 = Array.from({ length: 50 }, (_, i) => address(10, i + 1));
export const collections404 = Array.from({ length: 2 }, (_, i) => address(11, i + 1));

/** Values of the fungible token's 51 holders: beyond 2^64, in groups of three equal values. */
export const fungibleHolders = Array.from({ length: 51 }, (_, i) => ({
  address: address(12, i + 1),
  value: two70 + BigInt(Math.floor(i / 3)),
}));

/**
 * Writes the token balance rows directly: the rows the indexer would keep, in the numbers the token list
 * tests need (the holder's 51 balances, 51 holders of a fungible token and of one ERC-1155 id, and 102 NFT
 * collections of the collector), into `db`, whose schema is in place.
 */
export async function seedTokenBalances(db: Database) {
  await db.query(
    `INSERT INTO blocks (number, hash, parent_hash, timestamp, miner, gas_limit, gas_used, extra_data, sha3_uncles,
       state_root, transactions_root, receipts_root, logs_bloom, transaction_count)
     VALUES (1, '\\x01', '\\x00', 1700000000, '\\x00', 30000000, 0, '\\x', '\\x', '\\x', '\\x', '\\x', '\\x', 0)`,
  );
  await db.query("INSERT INTO checkpoints (name, block_number) VALUES ('blocks', 1)");
  await db.query(
    "INSERT INTO addresses (hash, is_contract, first_seen_block) VALUES ($1, false, 1), ($2, true, 1)",
    [Buffer.from(holder.slice(2), "hex"), Buffer.from(at(fungibleHolders, 50).address.slice(2), "hex")],
  );
  await insertTokens(db, [
    ...erc20.map((a, i): TokenSeed => [a, "ERC-20", i === 0 ? null : `Coin ${i}`]),
    [erc721, "ERC-721", "Collectible"],
    [erc1155, "ERC-1155", "Multi"],
    [erc404, "ERC-404", "Hybrid"],
    [emptyToken, "ERC-20", "Spent"],
    [fungible, "ERC-20", "Fungible"],
    [multi, "ERC-1155", "Multi holders"],
    [idZeroToken, "ERC-721", "Id zero"],
    ...collections721.map((a): TokenSeed => [a, "ERC-721", "C721"]),
    ...collections1155.map((a): TokenSeed => [a, "ERC-1155", "C1155"]),
    ...collections404.map((a): TokenSeed => [a, "ERC-404", "C404"]),
  ]);
  await insertBalances(db, [
    // 19 ERC-20 balances (ties of equal values), one above 2^64; a spent balance that is not listed.
    ...erc20.map(
      (a, i): BalanceSeed => [a, -1, holder, i === 5 ? two70 + 1n : BigInt((i % 5) + 1) * 10n ** 18n],
    ),
    [emptyToken, -1, holder, 0],
    // ERC-721: three ids, one row of value 3.
    [erc721, 1, holder, 1],
    [erc721, 2, holder, 1],
    [erc721, 3, holder, 1],
    [erc721, 4, at(fungibleHolders, 1).address, 1],
    // ERC-1155: 29 ids; id 100 has a second holder, id 101 a balance of 5.
    ...Array.from({ length: 29 }, (_, i): BalanceSeed => [erc1155, 100 + i, holder, i === 1 ? 5 : 1]),
    [erc1155, 100, at(fungibleHolders, 2).address, 2],
    // ERC-404: the fungible side and one id.
    [erc404, -1, holder, 5n * 10n ** 18n],
    [erc404, 7, holder, 1],
    // Endpoint 6: 51 holders of the fungible token, a spent one.
    ...fungibleHolders.map((h): BalanceSeed => [fungible, -1, h.address, h.value]),
    [fungible, -1, address(12, 99), 0],
    // Endpoint 6 for ERC-1155 and endpoint 9: id 5 of `multi` has 51 holders; two holders hold id 6 too.
    ...fungibleHolders.map((h): BalanceSeed => [multi, 5, h.address, h.value]),
    [multi, 6, at(fungibleHolders, 50).address, at(fungibleHolders, 50).value],
    [multi, 6, at(fungibleHolders, 49).address, 1],
    [idZeroToken, 0, address(13, 2), 1],
    // Endpoint 11: one id per collection; 12 ids in the first ERC-721 and 10 in the first ERC-1155.
    ...collections721.map((a): BalanceSeed => [a, 1, collector, 1]),
    ...Array.from({ length: 11 }, (_, i): BalanceSeed => [at(collections721, 0), 2 + i, collector, 1]),
    ...collections1155.map((a): BalanceSeed => [a, 1, collector, 3]),
    ...Array.from({ length: 9 }, (_, i): BalanceSeed => [at(collections1155, 0), 2 + i, collector, 1]),
    ...collections404.map((a): BalanceSeed => [a, -1, collector, 10n ** 18n]),
    ...collections404.map((a): BalanceSeed => [a, 42, collector, 1]),
  ]);
  await insertInstances(db, [
    [
      erc1155,
      100,
      { name: "One hundred", image: "ipfs://QmImage", external_url: "https://example.org/100" },
      null,
    ],
    [erc1155, 102, null, "request failed: 404"],
    [
      at(collections721, 0),
      12,
      {
        name: "Twelve",
        image_url: "https://example.org/12.png",
        animation_url: "ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/12.mp4",
      },
      null,
    ],
  ]);
}
