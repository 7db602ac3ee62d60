import { readCheckpoint } from "../../src/db/checkpoints.ts";
import type { Database } from "../../src/db/client.ts";
import type { RpcClient } from "../../src/rpc/client.ts";
import { type DatabaseKind, fingerprint } from "./databases.ts";
import { indexNode } from "./index-node.ts";
import { type UntilOptions, until } from "./until.ts";

/**
 * Waits until `db` holds exactly the node's head block, by number and hash, as its checkpoint; `failOn`
 * ends the wait with an indexer's failure.
 */
export async function untilIndexedHead(
  client: RpcClient,
  db: Database,
  { failOn }: Pick<UntilOptions, "failOn"> = {},
): Promise<void> {
  await until(
    "the indexer to reach the node's head",
    async () => {
      const head = await client.request<{ hash: string; number: string }>("eth_getBlockByNumber", [
        "latest",
        false,
      ]);
      const [row] = await db.query<{ hash: string }>(
        "SELECT '0x' || encode(hash, 'hex') AS hash FROM blocks WHERE number = $1",
        [Number(head.number)],
      );
      return row?.hash === head.hash && (await readCheckpoint(db)) === BigInt(head.number);
    },
    { timeoutMs: 60_000, failOn },
  );
}

/** The fingerprint of a fresh index of the node's current chain, in a new database of `kind`. */
export async function freshIndexFingerprint(
  client: RpcClient,
  kind: DatabaseKind,
): Promise<Record<string, string>> {
  const { test } = await indexNode(kind, client);
  try {
    return await fingerprint(test.db);
  } finally {
    await test.drop();
  }
}
