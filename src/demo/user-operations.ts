import { createRequire } from "node:module";
import {
  type Abi,
  type Address,
  concat,
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hash,
  type Hex,
  http,
  type PublicClient,
  parseEther,
  parseEventLogs,
  parseGwei,
  type TransactionReceipt,
  type WalletClient,
} from "viem";
import {
  entryPoint06Abi,
  entryPoint07Abi,
  entryPoint08Abi,
  getUserOperationHash,
  toPackedUserOperation,
  type UserOperation,
} from "viem/account-abstraction";
import { mnemonicToAccount } from "viem/accounts";
import { anvil } from "viem/chains";
import { required } from "../required.ts";
import { artifactOf, compileDemoContracts } from "./compile.ts";
import { waitForReceipt } from "./wait-for-receipt.ts";

/** Parameters of {@link runUserOperations}. */
export type RunUserOperationsParameters = {
  /** JSON-RPC endpoint of an anvil node (default mnemonic, automine on). */
  rpcUrl: string;
};

/** The EntryPoint versions the demo deploys, keyed as Sextant's configuration groups them. */
export type EntryPointKey = "v06" | "v07" | "v08";

/** One user operation the demo signed and sent through `handleOps`, with what it was meant to do. */
export type SentUserOperation = {
  /** What the operation does, for example links. */
  description: string;
  /** The bundle transaction (`handleOps`) that carried it. */
  transactionHash: Hash;
  blockNumber: bigint;
  /** `EntryPoint.getUserOpHash` of the operation. */
  userOpHash: Hash;
  entryPoint: Address;
  entryPointVersion: "0.6" | "0.7" | "0.8";
  sender: Address;
  nonce: bigint;
  /** The factory named in the operation's init code; null when the account already existed. */
  factory: Address | null;
  /** Always null: the demo's accounts pay for themselves. */
  paymaster: Address | null;
  /** Whether the account's call was meant to succeed (the EntryPoint's `success`). */
  success: boolean;
  callData: Hex;
  /** The signed operation in viem's unpacked form (gas limits and fees as separate fields). */
  userOperation: UserOperation;
  /** The operation as it went into `handleOps` (packed for v0.7 and v0.8). */
  submitted: Record<string, unknown>;
};

/** The user operations of one EntryPoint version. */
export type UserOperationExamples = {
  /** Deploys account 0 through the factory and sends ETH from it. */
  deploy: SentUserOperation;
  /** A plain ETH transfer from account 0. */
  transfer: SentUserOperation;
  /** An ERC-20 `transfer` called by account 0. */
  tokenTransfer: SentUserOperation;
  /** Two operations in one `handleOps`: account 1 deploys itself, account 0 sends ETH. */
  bundle: [SentUserOperation, SentUserOperation];
  /** An ERC-20 `transfer` of more than the account holds: the call reverts, the bundle does not. */
  reverted: SentUserOperation;
  /** An ETH transfer in a bundle that a contract relays to the EntryPoint (`BundleForwarder`). */
  relayed: SentUserOperation;
  /** v0.7 only: an ETH transfer whose gas a `VerifyingPaymaster` pays, on the owner's signature. */
  sponsored?: SentUserOperation;
};

/** Return type of {@link runUserOperations}. */
export type RunUserOperationsReturnType = {
  chainId: number;
  /** The canonical EntryPoint addresses, where the demo deployed them. */
  entryPoints: Record<EntryPointKey, Address>;
  /** Each version's `SimpleAccountFactory`. */
  factories: Record<EntryPointKey, Address>;
  /** Each version's two `SimpleAccount`s (ERC-1967 proxies made by the factory). */
  accounts: Record<EntryPointKey, [Address, Address]>;
  /** The externally owned account that signs for every smart account (anvil dev account 7). */
  owner: Address;
  /** Sends every `handleOps` and is its beneficiary (anvil dev account 8). */
  bundler: Address;
  /** Deploys and funds everything (anvil dev account 9). */
  deployer: Address;
  /** The ERC-20 the accounts transfer: Aave's `MintableERC20` mock (anyone may mint), from its npm artifact. */
  token: Address;
  examples: Record<EntryPointKey, UserOperationExamples>;
};

type Version = SentUserOperation["entryPointVersion"];

type Artifact = { abi: Abi; bytecode: Hex };

/** Where the EntryPoints live on every chain: the deterministic deployer with the salt each release used. */
const deterministicDeployer: Address = "0x4e59b44847b379578588920ca78fbf26c0b4956c";

const releases: Record<EntryPointKey, { version: Version; package: string; salt: Hex; abi: Abi }> = {
  v06: {
    version: "0.6",
    package: "@account-abstraction/contracts-v06",
    salt: "0x0000000000000000000000000000000000000000000000000000000000000000",
    abi: entryPoint06Abi,
  },
  v07: {
    version: "0.7",
    package: "@account-abstraction/contracts-v07",
    salt: "0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3",
    abi: entryPoint07Abi,
  },
  v08: {
    version: "0.8",
    package: "@account-abstraction/contracts-v08",
    salt: "0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9",
    abi: entryPoint08Abi,
  },
};

const anvilMnemonic = "test test test test test test test test test test test junk";
// The main scenario sends from dev accounts 0-5; these never collide with its nonces.
const ownerIndex = 7;
const bundlerIndex = 8;
const deployerIndex = 9;

const require = createRequire(import.meta.url);

/**
 * Deploys EntryPoint v0.6, v0.7 and v0.8 at their canonical addresses (the releases' own init code
 * through anvil's deterministic CREATE2 deployer reproduces them, so these are real deployments), a
 * `SimpleAccountFactory` per version and an ERC-20, then sends signed user operations through
 * `handleOps`: per version an op that deploys its account, a plain ETH transfer, an ERC-20 transfer, a
 * bundle of two ops, an op whose call reverts and a bundle relayed by a contract; on v0.7 also an op whose
 * gas a `VerifyingPaymaster` pays.
 *
 * @example
 * const anvil = await startAnvil();
 * const { examples } = await runUserOperations({ rpcUrl: anvil.rpcUrl });
 * console.log(examples.v07.deploy.userOpHash);
 */
export async function runUserOperations({
  rpcUrl,
}: RunUserOperationsParameters): Promise<RunUserOperationsReturnType> {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ transport, cacheTime: 0 });
  const owner = mnemonicToAccount(anvilMnemonic, { addressIndex: ownerIndex });
  const bundler = mnemonicToAccount(anvilMnemonic, { addressIndex: bundlerIndex });
  const deployer = mnemonicToAccount(anvilMnemonic, { addressIndex: deployerIndex });
  const chainId = await publicClient.getChainId();
  const chain = { ...anvil, id: chainId };
  const bundlerWallet = createWalletClient({ account: bundler, chain, transport });
  const deployerWallet = createWalletClient({ account: deployer, chain, transport });

  const deployContract = async (artifact: Artifact, args: unknown[]) => {
    const hash = await deployerWallet.sendTransaction({
      data: encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args }),
    });
    const receipt = await mined(publicClient, hash);
    if (!receipt.contractAddress) throw new Error(`deployment ${hash} created no contract`);
    return getAddress(receipt.contractAddress);
  };
  const tokenArtifact = loadArtifact(
    "@aave/core-v3",
    "contracts/mocks/tokens/MintableERC20.sol/MintableERC20",
  );
  const token = await deployContract(tokenArtifact, ["Sextant User Op Token", "SUT", 18]);
  const verifyingPaymaster = loadArtifact(releases.v07.package, "VerifyingPaymaster");
  const forwarder = artifactOf(await compileDemoContracts(), "BundleForwarder");
  const relay = await deployContract(forwarder, []);

  const result: RunUserOperationsReturnType = {
    chainId,
    entryPoints: {} as RunUserOperationsReturnType["entryPoints"],
    factories: {} as RunUserOperationsReturnType["factories"],
    accounts: {} as RunUserOperationsReturnType["accounts"],
    owner: owner.address,
    bundler: bundler.address,
    deployer: deployer.address,
    token,
    examples: {} as RunUserOperationsReturnType["examples"],
  };

  for (const key of Object.keys(releases) as EntryPointKey[]) {
    const release = releases[key];
    const entryPoint = await deployEntryPoint(publicClient, deployerWallet, key);
    const factoryArtifact = loadArtifact(release.package, "SimpleAccountFactory");
    const accountAbi = loadArtifact(release.package, "SimpleAccount").abi;
    const factory = await deployContract(factoryArtifact, [entryPoint]);
    // The account address is the factory's CREATE2 prediction; funding it first pays for its deployment.
    const accounts = (await Promise.all(
      [0n, 1n].map((salt) =>
        publicClient.readContract({
          address: factory,
          abi: factoryArtifact.abi,
          functionName: "getAddress",
          args: [owner.address, salt],
        }),
      ),
    )) as [Address, Address];
    for (const account of accounts) {
      await mined(
        publicClient,
        await deployerWallet.sendTransaction({ to: account, value: parseEther("1") }),
      );
    }
    await mined(
      publicClient,
      await deployerWallet.writeContract({
        address: token,
        abi: tokenArtifact.abi,
        functionName: "mint",
        args: [accounts[0], parseEther("100")],
      }),
    );

    // v0.7's VerifyingPaymaster pays for operations its signer (the owner) signed; it pays from a deposit.
    const paymaster =
      key === "v07" ? await deployContract(verifyingPaymaster, [entryPoint, owner.address]) : undefined;
    if (paymaster) {
      await mined(
        publicClient,
        await deployerWallet.writeContract({
          address: paymaster,
          abi: verifyingPaymaster.abi,
          functionName: "deposit",
          value: parseEther("1"),
        }),
      );
    }
    /** The operation with the paymaster's fields: no time limits, and the signer's approval of its hash. */
    const sponsored = async (operation: UserOperation<"0.7">, by: Address): Promise<UserOperation<"0.7">> => {
      const timeLimits = encodeAbiParameters([{ type: "uint48" }, { type: "uint48" }], [0, 0]);
      const draft = {
        ...operation,
        paymaster: by,
        paymasterVerificationGasLimit: 100_000n,
        paymasterPostOpGasLimit: 0n,
        // The hash covers the paymaster's gas limits, not its data, which carries the signature over it.
        paymasterData: concat([timeLimits, `0x${"00".repeat(65)}`]),
      };
      const hash = (await publicClient.readContract({
        address: by,
        abi: verifyingPaymaster.abi,
        functionName: "getHash",
        args: [toPackedUserOperation(draft), 0, 0],
      })) as Hex;
      const approval = await owner.signMessage({ message: { raw: hash } });
      return { ...draft, paymasterData: concat([timeLimits, approval]) };
    };

    const nonces = new Map<Address, bigint>();
    type Planned = {
      description: string;
      account: 0 | 1;
      target: Address;
      value: bigint;
      data: Hex;
      /** The paymaster that pays for the operation (v0.7's VerifyingPaymaster). */
      paymaster?: Address;
      /** The account's call is meant to revert. */
      expectFailure?: boolean;
    };
    /** `via`: a contract that relays the bundle to the EntryPoint, as smart-contract bundlers do. */
    const send = async (plans: Planned[], via?: Address) => {
      const block = await publicClient.getBlock();
      const maxPriorityFeePerGas = parseGwei("1");
      const maxFeePerGas = (block.baseFeePerGas ?? 0n) * 2n + maxPriorityFeePerGas;
      const signed = [];
      for (const plan of plans) {
        const sender = accounts[plan.account];
        const nonce = nonces.get(sender) ?? 0n;
        nonces.set(sender, nonce + 1n);
        const deploys = nonce === 0n;
        const factoryData = encodeFunctionData({
          abi: factoryArtifact.abi,
          functionName: "createAccount",
          args: [owner.address, BigInt(plan.account)],
        });
        const common = {
          sender,
          nonce,
          callData: encodeFunctionData({
            abi: accountAbi,
            functionName: "execute",
            args: [plan.target, plan.value, plan.data],
          }),
          callGasLimit: 200_000n,
          verificationGasLimit: deploys ? 1_000_000n : 150_000n,
          preVerificationGas: 60_000n,
          maxFeePerGas,
          maxPriorityFeePerGas,
          signature: "0x" as Hex,
        };
        let unsigned = (
          release.version === "0.6"
            ? { ...common, initCode: deploys ? concat([factory, factoryData]) : "0x", paymasterAndData: "0x" }
            : { ...common, ...(deploys ? { factory, factoryData } : {}) }
        ) as UserOperation;
        if (plan.paymaster) unsigned = await sponsored(unsigned as UserOperation<"0.7">, plan.paymaster);
        const userOpHash = getUserOperationHash({
          chainId,
          entryPointAddress: entryPoint,
          entryPointVersion: release.version,
          userOperation: unsigned,
        });
        // v0.8's hash is EIP-712 typed data, signed as is; the older accounts expect a personal_sign.
        const signature =
          release.version === "0.8"
            ? await owner.sign({ hash: userOpHash })
            : await owner.signMessage({ message: { raw: userOpHash } });
        const userOperation = { ...unsigned, signature } as UserOperation;
        signed.push({
          plan,
          userOpHash,
          userOperation,
          submitted: (release.version === "0.6"
            ? userOperation
            : toPackedUserOperation(userOperation as UserOperation<"0.7">)) as Record<string, unknown>,
          factory: deploys ? factory : null,
          paymaster: plan.paymaster ?? null,
        });
      }
      const handleOps = encodeFunctionData({
        abi: release.abi,
        functionName: "handleOps",
        args: [signed.map((op) => op.submitted), bundler.address],
      });
      const hash = await bundlerWallet.sendTransaction({
        to: via ?? entryPoint,
        data: via
          ? encodeFunctionData({ abi: forwarder.abi, functionName: "forward", args: [entryPoint, handleOps] })
          : handleOps,
        gas: 3_000_000n,
      });
      const receipt = await mined(publicClient, hash);
      const events = parseEventLogs({
        // The event is the same in every version.
        abi: entryPoint06Abi,
        logs: receipt.logs,
        eventName: "UserOperationEvent",
      });
      return signed.map((op): SentUserOperation => {
        const event = events.find((log) => log.args.userOpHash === op.userOpHash);
        if (!event) throw new Error(`bundle ${hash} emitted no UserOperationEvent for ${op.userOpHash}`);
        const success = !op.plan.expectFailure;
        if (event.args.success !== success) {
          throw new Error(`user operation ${op.userOpHash} (${op.plan.description}) did not go as planned`);
        }
        return {
          description: op.plan.description,
          transactionHash: hash,
          blockNumber: receipt.blockNumber,
          userOpHash: op.userOpHash,
          entryPoint,
          entryPointVersion: release.version,
          sender: op.userOperation.sender,
          nonce: op.userOperation.nonce,
          factory: op.factory,
          paymaster: op.paymaster,
          success,
          callData: op.userOperation.callData,
          userOperation: op.userOperation,
          submitted: op.submitted,
        };
      });
    };

    const transferTo = (account: 0 | 1, description: string, value: bigint): Planned => ({
      description,
      account,
      target: deployer.address,
      value,
      data: "0x",
    });
    const tokenTransfer = (description: string, amount: bigint): Planned => ({
      description,
      account: 0,
      target: token,
      value: 0n,
      data: encodeFunctionData({
        abi: tokenArtifact.abi,
        functionName: "transfer",
        args: [bundler.address, amount],
      }),
    });
    /** Sends `plan` alone in a bundle. */
    const sendOne = async (plan: Planned, via?: Address): Promise<SentUserOperation> => {
      const [sent] = await send([plan], via);
      return required(sent, `the user operation that ${plan.description}`);
    };
    const deploy = await sendOne(transferTo(0, "deploys account 0 and sends 0.01 ETH", parseEther("0.01")));
    const transfer = await sendOne(transferTo(0, "sends 0.02 ETH", parseEther("0.02")));
    const erc20 = await sendOne(tokenTransfer("transfers 5 SUT", parseEther("5")));
    const bundle = (await send([
      transferTo(1, "deploys account 1 and sends 0.03 ETH", parseEther("0.03")),
      transferTo(0, "sends 0.04 ETH in the same bundle", parseEther("0.04")),
    ])) as [SentUserOperation, SentUserOperation];
    const reverted = await sendOne({
      ...tokenTransfer("transfers more SUT than it holds", parseEther("1000")),
      expectFailure: true,
    });

    result.entryPoints[key] = entryPoint;
    result.factories[key] = factory;
    result.accounts[key] = accounts;
    const relayed = await sendOne(
      transferTo(0, "sends 0.06 ETH in a bundle relayed by a contract", parseEther("0.06")),
      relay,
    );
    const sponsoredTransfer = paymaster
      ? await sendOne({
          ...transferTo(0, "sends 0.05 ETH, gas paid by the paymaster", parseEther("0.05")),
          paymaster,
        })
      : undefined;
    result.examples[key] = {
      deploy,
      transfer,
      tokenTransfer: erc20,
      bundle,
      reverted,
      relayed,
      ...(sponsoredTransfer ? { sponsored: sponsoredTransfer } : {}),
    };
  }
  return result;
}

/**
 * Deploys the release's EntryPoint through the deterministic deployer, unless a resumed chain has it
 * already; the address is the canonical one because the init code and salt are the release's own.
 */
async function deployEntryPoint(
  publicClient: PublicClient,
  wallet: WalletClient,
  key: EntryPointKey,
): Promise<Address> {
  const release = releases[key];
  const { bytecode } = loadArtifact(release.package, "EntryPoint");
  const address = getContractAddress({
    opcode: "CREATE2",
    from: deterministicDeployer,
    salt: release.salt,
    bytecode,
  });
  if (await publicClient.getCode({ address })) return address;
  if (!(await publicClient.getCode({ address: deterministicDeployer }))) {
    throw new Error(`the node has no deterministic deployer at ${deterministicDeployer}`);
  }
  const hash = await wallet.sendTransaction({
    account: wallet.account ?? null,
    chain: wallet.chain ?? null,
    to: deterministicDeployer,
    data: concat([release.salt, bytecode]),
    gas: 8_000_000n,
  });
  await mined(publicClient, hash);
  if (!(await publicClient.getCode({ address })))
    throw new Error(`EntryPoint ${key} did not land at ${address}`);
  return address;
}

function loadArtifact(packageName: string, contractName: string): Artifact {
  return require(`${packageName}/artifacts/${contractName}.json`) as Artifact;
}

async function mined(publicClient: PublicClient, hash: Hash): Promise<TransactionReceipt> {
  const receipt = await waitForReceipt({ publicClient, hash });
  if (receipt.status !== "success") throw new Error(`demo transaction ${hash} reverted`);
  return receipt;
}
