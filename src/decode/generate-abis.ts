import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** One ABI taken from a package's Hardhat or Truffle artifact. */
type PackagedAbi = {
  /** The constant it is exported as. */
  name: string;
  /** The artifact, inside the package. */
  artifact: string;
  /** TSDoc of the constant. */
  doc: string;
};

/**
 * The ABIs Sextant decodes with, by npm package. Each package becomes one module in `abis/` holding its
 * ABIs as `as const` literals, so viem infers their types and nothing reads the packages at run time.
 */
const packagedAbis: Record<string, PackagedAbi[]> = {
  "@openzeppelin/contracts": [
    { name: "erc165Abi", artifact: "build/contracts/IERC165.json", doc: "`IERC165` (`supportsInterface`)." },
    {
      name: "erc1967Abi",
      artifact: "build/contracts/IERC1967.json",
      doc: "`IERC1967`: the `Upgraded`, `AdminChanged` and `BeaconUpgraded` events of EIP-1967 proxies.",
    },
    {
      name: "erc1967ProxyAbi",
      artifact: "build/contracts/ERC1967Proxy.json",
      doc: "OpenZeppelin 5's `ERC1967Proxy` (its constructor and the errors of `ERC1967Utils`).",
    },
    {
      name: "uupsUpgradeableAbi",
      artifact: "build/contracts/UUPSUpgradeable.json",
      doc: "OpenZeppelin 5's `UUPSUpgradeable` (`upgradeToAndCall` on the implementation, called through the proxy).",
    },
    {
      name: "proxyAdminAbi",
      artifact: "build/contracts/ProxyAdmin.json",
      doc: "OpenZeppelin 5's `ProxyAdmin` (`upgradeAndCall` of a transparent proxy).",
    },
    {
      name: "upgradeableBeaconAbi",
      artifact: "build/contracts/UpgradeableBeacon.json",
      doc: "OpenZeppelin 5's `UpgradeableBeacon`.",
    },
    {
      name: "erc1822ProxiableAbi",
      artifact: "build/contracts/IERC1822Proxiable.json",
      doc: "`IERC1822Proxiable` (`proxiableUUID`, EIP-1822 UUPS).",
    },
    {
      name: "ownableAbi",
      artifact: "build/contracts/Ownable.json",
      doc: "OpenZeppelin 5's `Ownable`: `OwnershipTransferred` and its custom errors.",
    },
    {
      name: "erc20ErrorsAbi",
      artifact: "build/contracts/IERC20Errors.json",
      doc: "Custom errors of OpenZeppelin 5's ERC-20 tokens (ERC-6093), e.g. `ERC20InsufficientBalance`.",
    },
    {
      name: "erc721ErrorsAbi",
      artifact: "build/contracts/IERC721Errors.json",
      doc: "Custom errors of OpenZeppelin 5's ERC-721 tokens (ERC-6093).",
    },
    {
      name: "erc1155ErrorsAbi",
      artifact: "build/contracts/IERC1155Errors.json",
      doc: "Custom errors of OpenZeppelin 5's ERC-1155 tokens (ERC-6093).",
    },
    {
      name: "erc20BurnableAbi",
      artifact: "build/contracts/ERC20Burnable.json",
      doc: "OpenZeppelin 5's `ERC20Burnable` (`burn`, `burnFrom`, and the ERC-20 it extends).",
    },
    {
      name: "erc721BurnableAbi",
      artifact: "build/contracts/ERC721Burnable.json",
      doc: "OpenZeppelin 5's `ERC721Burnable` (`burn`, and the ERC-721 it extends).",
    },
    {
      name: "erc1155BurnableAbi",
      artifact: "build/contracts/ERC1155Burnable.json",
      doc: "OpenZeppelin 5's `ERC1155Burnable` (`burn`, `burnBatch`, and the ERC-1155 it extends).",
    },
  ],
  "canonical-weth": [
    {
      name: "weth9Abi",
      artifact: "build/contracts/WETH9.json",
      doc: "Canonical WETH9 (`deposit`, `withdraw`, `Deposit`, `Withdrawal`).",
    },
  ],
  "@uniswap/v3-core": [
    {
      name: "uniswapV3PoolAbi",
      artifact: "artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json",
      doc: "Uniswap v3's pool: `mint`, `burn`, `collect`, `swap`, `flash` and their events.",
    },
    {
      name: "uniswapV3FactoryAbi",
      artifact: "artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
      doc: "Uniswap v3's factory (`createPool`, `PoolCreated`).",
    },
  ],
  "@uniswap/v3-periphery": [
    {
      name: "nonfungiblePositionManagerAbi",
      artifact: "artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
      doc: "Uniswap v3's `NonfungiblePositionManager`: liquidity positions as ERC-721 tokens.",
    },
    {
      name: "swapRouterAbi",
      artifact: "artifacts/contracts/SwapRouter.sol/SwapRouter.json",
      doc: "Uniswap v3's `SwapRouter` (`exactInput`, `exactOutputSingle`, `multicall`, ...).",
    },
  ],
  "@aave/core-v3": [
    {
      name: "aaveV3PoolAbi",
      artifact: "artifacts/contracts/interfaces/IPool.sol/IPool.json",
      doc: "Aave v3's `IPool`: supply, borrow, repay, withdraw, flash loans, liquidations and their events.",
    },
  ],
};

/** Where the generated modules live. */
export const abiModulesDirectory = join(import.meta.dirname, "abis");

/** The module file a package's ABIs are written to, e.g. `uniswap-v3-core.ts`. */
function moduleFile(packageName: string): string {
  return `${packageName.replace(/^@/, "").replaceAll("/", "-")}.ts`;
}

/**
 * The contents of every module in `abis/`, by file name, rendered from the installed packages: the
 * generator writes them and a test checks the committed files still equal them.
 */
export function renderAbiModules(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const modules: Record<string, string> = {};
  for (const [packageName, abis] of Object.entries(packagedAbis)) {
    const { version } = require(`${packageName}/package.json`) as { version: string };
    const constants = abis.map(({ name, artifact, doc }) => {
      const { abi } = JSON.parse(readFileSync(require.resolve(`${packageName}/${artifact}`), "utf8"));
      // One item a line: a package update shows as the items it changed.
      const items = (abi as unknown[]).map((item) => `  ${JSON.stringify(item)},`).join("\n");
      return `/** ${doc} */\nexport const ${name} = [\n${items}\n] as const;\n`;
    });
    modules[moduleFile(packageName)] = [
      `// The ABIs of ${packageName} ${version}, generated by src/decode/generate-abis.ts: do not edit.`,
      "// `npm run generate:abis` writes them again after the package changes.",
      "",
      ...constants,
    ].join("\n");
  }
  return modules;
}

/** Writes the modules in `abis/` afresh from the installed packages. */
export function writeAbiModules(): void {
  rmSync(abiModulesDirectory, { recursive: true, force: true });
  mkdirSync(abiModulesDirectory);
  for (const [file, text] of Object.entries(renderAbiModules())) {
    writeFileSync(join(abiModulesDirectory, file), text);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) writeAbiModules();
