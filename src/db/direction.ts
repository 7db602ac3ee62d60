/**
 * The roles an address plays in a transaction, internal transaction or token transfer, as bits of the
 * `direction` column of the `address_*` link tables.
 */
export const Direction = { from: 1, to: 2, created: 4 } as const;
