import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { seedBlocks } from "./support/seed-blocks.ts";

// anvil produces no withdrawals and no recorded block has 51, so the rows are written directly.
const receiver = "0x4675c7e5baafbffbca748158becba61ef3b0a263";
const other = "0x0000000000000000000000000000000000000001";

describe.each(databaseKinds)("withdrawal lists on %s", (kind) => {
  let test: TestDatabase;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    await seedBlocks(test.db, 1, 3);
    // 51 to the receiver in block 2 (every other index), 10 to another address.
    await test.db.query(
      `INSERT INTO withdrawals (index, block_number, validator_index, address, amount)
       SELECT i, 2, 1000 + i, CASE WHEN i % 2 = 0 AND i < 102 THEN $1::bytea ELSE $2::bytea END, i::numeric * 1000000000
       FROM generate_series(0, 111) AS i`,
      [Buffer.from(receiver.slice(2), "hex"), Buffer.from(other.slice(2), "hex")],
    );
    await test.db.query("INSERT INTO checkpoints (name, block_number) VALUES ('blocks', 3)");
  });
  afterAll(() => test?.drop());

  it.each([
    ["/api/v2/blocks/2/withdrawals", 112],
    [`/api/v2/addresses/${receiver}/withdrawals`, 51],
  ])("%s pages %i withdrawals by index, highest first, without repeats", async (path, total) => {
    const app = await createApiServer({ db: test.db });
    const seen: number[] = [];
    let params: Record<string, unknown> | null = {};
    let pages = 0;
    while (params) {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
      const body = (await app.inject(`${path}?${query}`)).json();
      seen.push(...body.items.map((item: { index: number }) => item.index));
      if (body.next_page_params) expect(body.items).toHaveLength(50);
      params = body.next_page_params;
      pages++;
    }
    expect(pages).toBe(Math.ceil(total / 50));
    expect(seen).toHaveLength(total);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(new Set(seen).size).toBe(total);
    await app.close();
  });

  it("answers 200 empty for an indexed block without withdrawals", async () => {
    const app = await createApiServer({ db: test.db });
    expect((await app.inject("/api/v2/blocks/3/withdrawals")).json()).toEqual({
      items: [],
      next_page_params: null,
    });
    expect((await app.inject("/api/v2/blocks/4/withdrawals")).statusCode).toBe(404);
    await app.close();
  });
});
