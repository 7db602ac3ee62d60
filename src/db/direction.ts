/**
 * The bits of the `direction` column of the address index tables (`address_transactions`,
 * `address_internal_transactions`, `address_token_transfers`): how the address takes part in the row.
 * An address in several roles has their bits or-ed together.
 */
export const Direction = { from: 1, to: 2, created: 4 } as const;

/** A list's `filter`: `from` keeps what the address sent or made, `to` what it received. */
export type DirectionFilter = "to" | "from";

/**
 * The bits a `filter` of the transaction and internal-transaction lists keeps: `from` what the address
 * sent or made; `to` what it received, the contract it was created as included.
 */
export function receivedOrCreatedBits(filter: DirectionFilter): number {
  return filter === "from" ? Direction.from : Direction.to | Direction.created;
}

/**
 * The `direction` values a row of `address_transactions` can hold: sender, recipient, both (a transfer to
 * itself), or the contract a creation made (a creation has no recipient, and its sender is not the
 * contract it creates).
 */
export const transactionDirections = [
  Direction.from,
  Direction.to,
  Direction.from | Direction.to,
  Direction.created,
] as const;

/** The `direction` values a row of `address_token_transfers` can hold: sender, recipient, or both. */
export const transferDirections = [Direction.from, Direction.to, Direction.from | Direction.to] as const;

/**
 * The `direction` values of `address_transactions` a `filter` keeps, all of them without one: the index
 * keys follow the address with its direction, so a page reads one key range per value.
 */
export function transactionDirectionsFor(filter: DirectionFilter | undefined): number[] {
  return directionsWith(transactionDirections, filter && receivedOrCreatedBits(filter));
}

/** The `direction` values of `address_token_transfers` a `filter` keeps, as {@link transactionDirectionsFor}. */
export function transferDirectionsFor(filter: DirectionFilter | undefined): number[] {
  return directionsWith(transferDirections, filter && Direction[filter]);
}

function directionsWith(values: readonly number[], bits: number | undefined): number[] {
  return values.filter((direction) => bits === undefined || (direction & bits) !== 0);
}
