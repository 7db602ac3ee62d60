import type { Address } from "viem";
import type { RangeRows } from "../../db/tables.ts";

/**
 * The addresses a range touches: each becomes an `addresses` row once, at the first block that saw it,
 * marked a contract when the range found code there.
 */
export type Participation = {
  /** Records that `address` appears in block `blockNumber`. */
  see(address: string | null | undefined, blockNumber: number): void;
  /**
   * Records the parties of one row (a transaction, a frame, a transfer) and returns each distinct
   * address with the bits of every role it plays there (see `Direction`).
   */
  parties(
    roles: readonly (readonly [string | null | undefined, number])[],
    blockNumber: number,
  ): Map<string, number>;
};

/** Creates the participation of a range whose `addresses` rows go into `rows`. */
export function createParticipation(rows: RangeRows, contracts: ReadonlySet<Address>): Participation {
  const seen = new Set<string>();
  const see: Participation["see"] = (address, blockNumber) => {
    if (!address) return;
    const lower = address.toLowerCase();
    if (seen.has(lower)) return;
    seen.add(lower);
    rows.addresses.push({
      hash: lower,
      is_contract: contracts.has(lower as Address),
      first_seen_block: blockNumber,
    });
  };
  return {
    see,
    parties(roles, blockNumber) {
      const bits = new Map<string, number>();
      for (const [address, bit] of roles) {
        if (!address) continue;
        const lower = address.toLowerCase();
        bits.set(lower, (bits.get(lower) ?? 0) | bit);
        see(lower, blockNumber);
      }
      return bits;
    },
  };
}
