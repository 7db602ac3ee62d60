import { createConfig } from "ponder";
import { type Address, erc20Abi, http } from "viem";

// Set by bench/peer.bench.ts: the benchmark chain's node and its ERC-20 tokens.
const tokens = JSON.parse(process.env.BENCH_TOKENS ?? "[]") as Address[];

export default createConfig({
  database: { kind: "postgres", connectionString: process.env.DATABASE_URL },
  networks: {
    bench: {
      chainId: Number(process.env.BENCH_CHAIN_ID ?? 31337),
      transport: http(process.env.BENCH_RPC_URL),
      // A local node: no rate limit (the default is 50 requests/s) and nothing cached between runs.
      maxRequestsPerSecond: 100_000,
      disableCache: true,
    },
  },
  contracts: {
    Token: {
      network: "bench",
      abi: erc20Abi,
      address: tokens,
      startBlock: 0,
    },
  },
});
