/**
 * `npm run bench:abis`: what imported ABIs cost the pages that decode with them. On the demo chain (anvil,
 * indexed into a scratch database on DATABASE_URL's server, dropped at the end), the pages of endpoints 13,
 * 8 and 2 are timed in-process with the page cache off (BENCH_SAMPLES requests each, default 400): first
 * as indexed, with no imported ABI (the baseline), then with every called contract given an imported ABI of
 * all the demo's contracts' entries together, a few hundred, as verified contracts with large ABIs have.
 * Prints each page's p50 both ways and the ratio: near 1 when a page does not re-read, re-parse and
 * re-index the ABIs of its contracts on every request.
 */
import { createApiServer } from "../src/api/server.ts";
import { openDatabase } from "../src/db/client.ts";
import { writeContractAbi } from "../src/db/import-abis.ts";
import { migrate } from "../src/db/migrate.ts";
import { startAnvil } from "../src/demo/anvil.ts";
import { compileDemoContracts } from "../src/demo/compile.ts";
import { runScenario } from "../src/demo/scenario.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { median } from "./figures.ts";
import { createScratchDatabase } from "./scratch-database.ts";

const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const samples = Number(process.env.BENCH_SAMPLES ?? 400);
const database = "sextant_bench_imported_abis";

const scratch = await createScratchDatabase(serverUrl, database);
const anvil = await startAnvil();
try {
  const scenario = await runScenario({ rpcUrl: anvil.rpcUrl });
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    await migrate(db);
    const indexer = createIndexer({
      client: createRpcClient({ url: anvil.rpcUrl }),
      db,
      logger: createLogger("silent"),
    });
    await indexer.prepare();
    await indexer.catchUp(scenario.headBlockNumber);
    const app = await createApiServer({ db, pageCacheBytes: 0 });
    const account = scenario.accounts[0];
    const pages = [
      "/api/v2/token-transfers",
      `/api/v2/addresses/${account}/token-transfers`,
      `/api/v2/addresses/${account}/transactions`,
    ];
    const timePages = async () => {
      const p50s: number[] = [];
      for (const page of pages) {
        for (let i = 0; i < 50; i++) await app.inject(page);
        const times: number[] = [];
        for (let i = 0; i < samples; i++) {
          const started = process.hrtime.bigint();
          const answer = await app.inject(page);
          times.push(Number(process.hrtime.bigint() - started) / 1e6);
          if (answer.statusCode !== 200) throw new Error(`${page}: ${answer.statusCode}`);
        }
        p50s.push(median(times));
      }
      return p50s;
    };
    const baseline = await timePages();
    const abi = Object.values(await compileDemoContracts()).flatMap((artifact) => artifact.abi);
    const called = await db.query<{ to: `0x${string}` }>(
      "SELECT DISTINCT '0x' || encode(to_address, 'hex') AS to FROM transactions WHERE to_address IS NOT NULL",
    );
    for (const { to } of called) {
      await writeContractAbi(db, { address: to, name: "Demo", abi, source: "abi", file: "demo.json" });
    }
    const imported = await timePages();
    console.log(`${called.length} called contracts, each with an imported ABI of ${abi.length} entries`);
    for (const [i, page] of pages.entries()) {
      const [without, withAbis] = [baseline[i] as number, imported[i] as number];
      console.log(
        `${page.padEnd(80)} p50 ${without.toFixed(2)} ms without, ${withAbis.toFixed(2)} ms with: ratio ${(withAbis / without).toFixed(2)}`,
      );
    }
    await app.close();
  } finally {
    await db.close();
  }
} finally {
  await anvil.stop();
  await scratch.drop();
}
