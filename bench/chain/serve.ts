/**
 * `node --import tsx bench/chain/serve.ts`: builds the benchmark chain and serves it until interrupted,
 * so that `npm run bench:index` and `npm run bench:peer` started meanwhile reuse it instead of building
 * their own (the chain cannot be reloaded from a file with its history, see startBenchChain).
 */
import { announceBenchChain, startBenchChain } from "./build-chain.ts";

const chain = await startBenchChain({ log: (line) => process.stderr.write(line) });
const withdraw = await announceBenchChain(chain);
process.stderr.write(`serving the benchmark chain at ${chain.rpcUrl} (Ctrl-C to stop)\n`);
const shutdown = async () => {
  await withdraw();
  await chain.stop();
  process.exit(0);
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
