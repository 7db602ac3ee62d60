import { ponder } from "ponder:registry";
import { balance } from "ponder:schema";
import { zeroAddress } from "viem";

ponder.on("Token:Transfer", async ({ event, context }) => {
  const { from, to, value } = event.args;
  const token = event.log.address;
  if (from !== zeroAddress) {
    await context.db
      .insert(balance)
      .values({ token, holder: from, amount: -value })
      .onConflictDoUpdate((row) => ({ amount: row.amount - value }));
  }
  if (to !== zeroAddress) {
    await context.db
      .insert(balance)
      .values({ token, holder: to, amount: value })
      .onConflictDoUpdate((row) => ({ amount: row.amount + value }));
  }
});
