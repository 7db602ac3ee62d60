import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";
import { required } from "../required.ts";

/** ABI and creation bytecode of one compiled contract. */
export type Artifact = { abi: Abi; bytecode: Hex };

/** Compiled demo contracts keyed by contract name, e.g. `artifacts.DemoToken`. */
export type Artifacts = Record<string, Artifact>;

/** The artifact of `contractName`; throws when it was not compiled. */
export function artifactOf(artifacts: Artifacts, contractName: string): Artifact {
  return required(artifacts[contractName], `the compiled artifact of ${contractName}`);
}

/** Parameters of {@link compileDemoContracts}. */
export type CompileDemoContractsParameters = {
  /** Where compiled artifacts are cached; defaults to `.cache/solc/` in the repository root. */
  cacheDirectory?: string;
};

/** Return type of {@link compileDemoContracts}. */
export type CompileDemoContractsReturnType = Artifacts;

const contractsDirectory = fileURLToPath(new URL("./contracts/", import.meta.url));
const defaultCacheDirectory = fileURLToPath(new URL("../../.cache/solc/", import.meta.url));
const require = createRequire(import.meta.url);

const settings = {
  // solc 0.8.37 defaults to osaka, which anvil's cancun chain would reject.
  evmVersion: "cancun",
  optimizer: { enabled: true, runs: 200 },
};

// Packages the demo sources import from; their versions are part of the cache key.
const importedPackages = ["@openzeppelin/contracts", "@uniswap/v3-core", "@aave/core-v3"];

/**
 * Compiles every `src/demo/contracts/*.sol` with solc-js (OpenZeppelin, Uniswap v3 and Aave v3 imports
 * resolved from node_modules). Artifacts are cached on disk under a hash of the compiler, settings and sources, so
 * only the first run pays the few seconds of compilation.
 *
 * @throws Error listing the compiler's error messages when a source does not compile.
 *
 * @example
 * const artifacts = await compileDemoContracts();
 * const { abi, bytecode } = artifacts.DemoToken;
 */
export async function compileDemoContracts(
  parameters: CompileDemoContractsParameters = {},
): Promise<CompileDemoContractsReturnType> {
  const cacheDirectory = parameters.cacheDirectory ?? defaultCacheDirectory;
  const sources = await readDemoSources();
  const solcVersion: string = require("solc/package.json").version;
  const packageVersions = importedPackages.map(
    (name): string => `${name}@${require(`${name}/package.json`).version}`,
  );

  const hash = createHash("sha256").update(JSON.stringify({ solcVersion, packageVersions, settings }));
  for (const [name, content] of Object.entries(sources)) hash.update(`\0${name}\0${content}`);
  const cacheFile = join(cacheDirectory, `${hash.digest("hex")}.json`);

  const cached = await readFile(cacheFile, "utf8").catch(() => undefined);
  if (cached !== undefined) return JSON.parse(cached) as Artifacts;

  const artifacts = await compileSources(sources);
  await mkdir(cacheDirectory, { recursive: true });
  // Write then rename so a concurrent reader never sees a half-written cache file.
  const temporaryFile = `${cacheFile}.${process.pid}.tmp`;
  await writeFile(temporaryFile, JSON.stringify(artifacts));
  await rename(temporaryFile, cacheFile);
  return artifacts;
}

async function readDemoSources(): Promise<Record<string, string>> {
  const names = (await readdir(contractsDirectory)).filter((name) => name.endsWith(".sol")).sort();
  const entries = await Promise.all(
    names.map(async (name) => [name, await readFile(join(contractsDirectory, name), "utf8")] as const),
  );
  return Object.fromEntries(entries);
}

type SolcOutput = {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
};

/** Solidity sources keyed by file name, e.g. `{ "Token.sol": "pragma solidity ..." }`. */
export type CompileSourcesParameters = Record<string, string>;

/** Return type of {@link compileSources}. */
export type CompileSourcesReturnType = Artifacts;

/**
 * Compiles Solidity sources with solc-js, with the demo's settings (cancun, optimizer) and npm imports
 * resolved, uncached: for contracts a test declares inline.
 *
 * @throws Error listing the compiler's error messages when a source does not compile.
 *
 * @example
 * const { Uris } = await compileSources({ "Uris.sol": source });
 */
export async function compileSources(sources: CompileSourcesParameters): Promise<CompileSourcesReturnType> {
  // Loaded lazily: solc-js takes a while to initialise and cache hits never need it.
  const { default: solc } = await import("solc");
  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([name, content]) => [name, { content }])),
    settings: {
      ...settings,
      // Only the demo sources: bytecode for imported contracts would be wasted work.
      outputSelection: Object.fromEntries(
        Object.keys(sources).map((name) => [name, { "*": ["abi", "evm.bytecode.object"] }]),
      ),
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: readImport })) as SolcOutput;

  const errors = (output.errors ?? []).filter((error) => error.severity === "error");
  if (errors.length > 0) {
    throw new Error(
      `Solidity compilation failed:\n${errors.map((error) => error.formattedMessage).join("\n")}`,
    );
  }

  const artifacts: Artifacts = {};
  for (const contractsOfFile of Object.values(output.contracts ?? {})) {
    for (const [contractName, contract] of Object.entries(contractsOfFile)) {
      artifacts[contractName] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    }
  }
  return artifacts;
}

/** Resolves `@scope/package/path.sol` imports against installed npm packages; solc needs it synchronous. */
function readImport(path: string): { contents: string } | { error: string } {
  const segments = path.split("/");
  // A scoped package's name takes two segments.
  const nameLength = path.startsWith("@") ? 2 : 1;
  const packageName = segments.slice(0, nameLength).join("/");
  const relativePath = segments.slice(nameLength).join("/");
  try {
    const packageDirectory = dirname(require.resolve(`${packageName}/package.json`));
    return { contents: readFileSync(join(packageDirectory, relativePath), "utf8") };
  } catch (error) {
    return { error: `cannot import ${path}: ${(error as Error).message}` };
  }
}

/** Contracts deployed from the bytecode their npm packages ship, compiled by their authors. */
const packagedArtifactPaths = {
  UniswapV3Factory: "@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
  UniswapV3Pool: "@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json",
  NonfungiblePositionManager:
    "@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  // Aave's copy of the canonical WETH9 (Deposit, Withdrawal and the ERC-20 events), built with solc 0.8.
  WETH9: "@aave/core-v3/artifacts/contracts/dependencies/weth/WETH9.sol/WETH9.json",
};

/**
 * Reads the Hardhat artifacts of the real Uniswap v3 factory, pool and position manager and of WETH9 from
 * their npm packages: deploying their published bytecode keeps addresses such as the pool's CREATE2 address
 * (whose init code hash the position manager has built in) exactly as on mainnet.
 *
 * @example
 * const { UniswapV3Factory } = readPackagedArtifacts();
 */
export function readPackagedArtifacts(): Record<keyof typeof packagedArtifactPaths, Artifact> {
  const read = (path: string): Artifact => {
    const { abi, bytecode } = require(path) as Artifact;
    return { abi, bytecode };
  };
  return {
    UniswapV3Factory: read(packagedArtifactPaths.UniswapV3Factory),
    UniswapV3Pool: read(packagedArtifactPaths.UniswapV3Pool),
    NonfungiblePositionManager: read(packagedArtifactPaths.NonfungiblePositionManager),
    WETH9: read(packagedArtifactPaths.WETH9),
  };
}
