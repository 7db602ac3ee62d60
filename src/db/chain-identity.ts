import { bytesToHex } from "viem";
import { BaseError } from "../errors.ts";
import type { Database } from "./client.ts";
import { byteaParam } from "./table-rows.ts";

export type ChainIdentity = { chainId: number; genesisHash: string };

/** The database already holds another chain's data. */
export class ChainMismatchError extends BaseError {
  override name = "ChainMismatchError";
  override readonly isUserError = true;
}

/**
 * Records which chain the database indexes on first use, and afterwards refuses any other: a database
 * never mixes two chains.
 * @throws {ChainMismatchError} when the node serves a different chain id or genesis block.
 */
export async function ensureChainIdentity(db: Database, node: ChainIdentity): Promise<void> {
  await db.query(
    "INSERT INTO chain_identity (chain_id, genesis_hash) VALUES ($1, $2::bytea) ON CONFLICT (singleton) DO NOTHING",
    [node.chainId, byteaParam(node.genesisHash)],
  );
  const stored = await readChainIdentity(db);
  if (!stored) throw new ChainMismatchError("could not record the chain identity");
  if (stored.chainId !== node.chainId || stored.genesisHash !== node.genesisHash.toLowerCase()) {
    throw new ChainMismatchError(
      `the database indexes chain ${stored.chainId} (genesis ${stored.genesisHash}), but the node serves chain ${node.chainId} (genesis ${node.genesisHash})`,
      { details: "point Sextant at the node of the indexed chain, or at an empty database" },
    );
  }
}

/** The chain the database indexes, or null when nothing was indexed yet. */
export async function readChainIdentity(db: Database): Promise<ChainIdentity | null> {
  const [row] = await db.query<{ chain_id: number; genesis_hash: Uint8Array }>(
    "SELECT chain_id, genesis_hash FROM chain_identity",
  );
  return row ? { chainId: Number(row.chain_id), genesisHash: bytesToHex(row.genesis_hash) } : null;
}
