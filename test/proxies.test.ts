import { createRequire } from "node:module";
import {
  type Abi,
  type Address,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { renderAddress } from "../src/api/views/address.ts";
import { readCheckpoint } from "../src/db/checkpoints.ts";
import { writeContractAbi } from "../src/db/import-abis.ts";
import { findAddresses } from "../src/db/queries/addresses.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { eip1822ProxiableSlot } from "../src/indexer/detect-proxies.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { databaseKinds } from "./support/databases.ts";
import { at, only } from "./support/elements.ts";
import { type FollowedNode, followNode } from "./support/index-node.ts";
import { sendTransaction, waitForReceipt } from "./support/transact.ts";
import { until } from "./support/until.ts";

const gasPrice = toHex(10_000_000_000n);
const adminSlot: Hex = "0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103";
const require = createRequire(import.meta.url);

function artifact(name: string): { abi: Abi; bytecode: Hex } {
  return require(`@openzeppelin/contracts/build/contracts/${name}.json`);
}

/** EIP-1167's creation code for a clone of `implementation`. */
function cloneCode(implementation: Address): Hex {
  return `0x3d602d80600a3d3981f3363d3d373d3d3d363d73${implementation.slice(2)}5af43d82803e903d91602b57fd5bf3`;
}

/** A contract that CREATEs whatever init code it is called with: clones made inside a transaction. */
const factoryCode: Hex = "0x600a600c600039600a6000f3365f5f37365f5ff05000";

/** Creation code storing `implementation` in EIP-1822's PROXIABLE slot, leaving one byte of code. */
function proxiableCode(implementation: Address): Hex {
  // PUSH20 implementation, PUSH32 slot, SSTORE; then CODECOPY and RETURN the 37 bytes after: a runtime
  // that reads the slot and delegates (PUSH32 slot, SLOAD, GAS, DELEGATECALL, STOP), as a proxy's does.
  return `0x73${implementation.slice(2)}7f${eip1822ProxiableSlot.slice(2)}556025604360003960256000f37f${eip1822ProxiableSlot.slice(2)}545af400`;
}

/** Polls `probe` every 25 ms until it answers, for up to 20 s. */
const waitFor = <T>(probe: () => Promise<T>, what: string) =>
  until(what, probe, { timeoutMs: 20_000, intervalMs: 25 });

/** An indexer following `client` into a fresh database, with helpers to send and read back. */
function followChain(kind: (typeof databaseKinds)[number], getClient: () => RpcClient) {
  const state = {} as { indexed: FollowedNode; account: Address };
  const send = (transaction: { to?: Address; data: Hex }) =>
    sendTransaction(getClient(), { from: state.account, gasPrice, gas: toHex(5_000_000), ...transaction });
  const deploy = async (data: Hex) => getAddress((await send({ data })).contractAddress as Address);
  const caughtUp = async () => {
    const head = BigInt(await getClient().request<Hex>("eth_blockNumber"));
    await waitFor(async () => (await readCheckpoint(state.indexed.test.db)) === head, "the indexer");
  };
  const addressOf = async (address: Address) =>
    renderAddress(address.toLowerCase(), await findAddresses(state.indexed.test.db, [address.toLowerCase()]));
  const start = async () => {
    state.account = at(await getClient().request<Address[]>("eth_accounts"), 0, "dev accounts");
    state.indexed = await followNode(kind, getClient(), { pollIntervalMs: 20, rangeSize: 5 });
  };
  const stop = () => state.indexed?.drop();
  return { state, send, deploy, caughtUp, addressOf, start, stop };
}

describe.each(databaseKinds)("proxy detection on %s", (kind) => {
  let anvil: Anvil;
  let client: RpcClient;
  const chain = followChain(kind, () => client);
  let implementationA: Address;
  let implementationB: Address;
  let transparent: Address;
  let beacon: Address;
  let beaconProxy: Address;

  beforeAll(async () => {
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl });
    await chain.start();
    const owner = chain.state.account;
    const deployOz = (name: string, args: unknown[]) =>
      chain.deploy(encodeDeployData({ ...artifact(name), args } as never));
    implementationA = await deployOz("ProxyAdmin", [owner]);
    implementationB = await deployOz("ProxyAdmin", [owner]);
    // OpenZeppelin 5.7 proxies refuse to start uninitialised: `owner()` is a harmless first call.
    const ownerCall = "0x8da5cb5b";
    transparent = await deployOz("TransparentUpgradeableProxy", [implementationA, owner, ownerCall]);
    beacon = await deployOz("UpgradeableBeacon", [implementationA, owner]);
    beaconProxy = await deployOz("BeaconProxy", [beacon, ownerCall]);
  });
  afterAll(async () => {
    await chain.stop();
    await anvil?.stop();
  });

  it("finds EIP-1967 proxies, beacon proxies and leaves plain contracts alone", async () => {
    await chain.caughtUp();
    expect(await chain.addressOf(transparent)).toMatchObject({
      is_contract: true,
      is_verified: false,
      proxy_type: "eip1967",
      implementations: [{ address_hash: implementationA, name: null }],
      implementation_name: null,
    });
    expect(await chain.addressOf(beaconProxy)).toMatchObject({
      proxy_type: "eip1967_beacon",
      implementations: [{ address_hash: implementationA, name: null }],
    });
    for (const plain of [implementationA, beacon]) {
      expect(await chain.addressOf(plain)).toMatchObject({ proxy_type: null, implementations: [] });
    }
  });

  it("finds EIP-1167 clones made by a transaction and inside one, and EIP-1822 proxies", async () => {
    const direct = await chain.deploy(cloneCode(implementationA));
    const factory = await chain.deploy(factoryCode);
    await chain.send({ to: factory, data: cloneCode(implementationB) });
    const inner = getContractAddress({ from: factory, nonce: 1n });
    const uups = await chain.deploy(proxiableCode(implementationB));
    await chain.caughtUp();
    expect(await chain.addressOf(direct)).toMatchObject({
      proxy_type: "eip1167",
      implementations: [{ address_hash: implementationA }],
    });
    expect(await chain.addressOf(inner)).toMatchObject({
      proxy_type: "eip1167",
      implementations: [{ address_hash: implementationB }],
    });
    expect(await chain.addressOf(factory)).toMatchObject({ proxy_type: null });
    expect(await chain.addressOf(uups)).toMatchObject({
      proxy_type: "eip1822",
      implementations: [{ address_hash: implementationB }],
    });
    // A clone has no code of its own to verify: as in Blockscout, it is verified once its implementation
    // is, unlike a proxy with code of its own (EIP-1822 here), which stays unverified.
    expect(await chain.addressOf(inner)).toMatchObject({ is_verified: false });
    await writeContractAbi(chain.state.indexed.test.db, {
      address: implementationB.toLowerCase() as Address,
      name: "ProxyAdmin",
      abi: artifact("ProxyAdmin").abi,
      source: "abi",
      file: "ProxyAdmin.json",
    });
    expect(await chain.addressOf(inner)).toMatchObject({
      is_verified: true,
      name: null,
      implementation_name: "ProxyAdmin",
    });
    expect(await chain.addressOf(uups)).toMatchObject({
      is_verified: false,
      implementation_name: "ProxyAdmin",
    });
    expect(await chain.addressOf(direct)).toMatchObject({ is_verified: false });
    // The tests below expect implementations without imported ABIs.
    await chain.state.indexed.test.db.query("DELETE FROM contract_abis");
  });

  it("follows upgrades of a proxy and of a beacon, and forgets them when a reorganization removes them", async () => {
    const adminWord = await client.request<Hex>("eth_getStorageAt", [transparent, adminSlot, "latest"]);
    const admin = getAddress(`0x${adminWord.slice(26)}`);
    await chain.send({
      to: admin,
      data: encodeFunctionData({
        abi: artifact("ProxyAdmin").abi,
        functionName: "upgradeAndCall",
        args: [transparent, implementationB, "0x"],
      }),
    });
    await chain.send({
      to: beacon,
      data: encodeFunctionData({
        abi: artifact("UpgradeableBeacon").abi,
        functionName: "upgradeTo",
        args: [implementationB],
      }),
    });
    await chain.caughtUp();
    for (const proxy of [transparent, beaconProxy]) {
      expect((await chain.addressOf(proxy))?.implementations).toEqual([
        { address_hash: implementationB, address: implementationB, name: null },
      ]);
    }
    // The API shows the same address object wherever the proxy appears.
    await chain.send({ to: transparent, data: "0x" });
    await chain.caughtUp();
    const app = await createApiServer({ db: chain.state.indexed.test.db });
    const { items } = (await app.inject(`/api/v2/addresses/${transparent}/transactions`)).json();
    await app.close();
    expect(items[0].to).toMatchObject({ hash: transparent, proxy_type: "eip1967" });
    expect(items[0].to.implementations).toEqual([
      { address_hash: implementationB, address: implementationB, name: null },
    ]);

    // Both upgrades (and the call) replaced by empty blocks: the rows above are gone, the earlier state
    // is current again.
    const before = BigInt(await client.request<Hex>("eth_blockNumber"));
    await client.request("anvil_reorg", [3, []]);
    await waitFor(async () => {
      const [row] = await chain.state.indexed.test.db.query<{ hash: string }>(
        "SELECT '0x' || encode(hash, 'hex') AS hash FROM blocks WHERE number = $1",
        [Number(before)],
      );
      const node = await client.request<{ hash: string }>("eth_getBlockByNumber", ["latest", false]);
      return row?.hash === node.hash;
    }, "the reorganization");
    const { above } = only(
      await chain.state.indexed.test.db.query<{ above: number }>(
        "SELECT count(*)::int AS above FROM proxies WHERE block_number > $1",
        [Number(before - 3n)],
      ),
    );
    expect(above).toBe(0);
    for (const proxy of [transparent, beaconProxy]) {
      expect((await chain.addressOf(proxy))?.implementations).toEqual([
        { address_hash: implementationA, address: implementationA, name: null },
      ]);
    }
  });
});

describe.each(databaseKinds)("EIP-7702 delegations on %s", (kind) => {
  let anvil: Anvil;
  let client: RpcClient;
  const chain = followChain(kind, () => client);

  beforeAll(async () => {
    anvil = await startAnvil({ hardfork: "prague" });
    client = createRpcClient({ url: anvil.rpcUrl });
    await chain.start();
  });
  afterAll(async () => {
    await chain.stop();
    await anvil?.stop();
  });

  it("finds an authority's delegation, its change and its removal", async () => {
    // anvil's third dev account
    const account = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
    const wallet = createWalletClient({ account, chain: foundry, transport: http(anvil.rpcUrl) });
    const delegate = async (contractAddress: Address) => {
      const authorization = await wallet.signAuthorization({ contractAddress, executor: "self" });
      const hash = await wallet.sendTransaction({
        authorizationList: [authorization],
        to: account.address,
        data: "0x",
      });
      await waitForReceipt(client, hash);
      await chain.caughtUp();
      return chain.addressOf(account.address);
    };
    const first = "0x00000000000000000000000000000000000000AA";
    const second = "0x00000000000000000000000000000000000000bb";
    expect(await delegate(first)).toMatchObject({
      proxy_type: "eip7702",
      implementations: [{ address_hash: first, name: null }],
    });
    expect(await delegate(second)).toMatchObject({
      proxy_type: "eip7702",
      implementations: [{ address_hash: second, name: null }],
    });
    // Delegating to the zero address clears the designator: no proxy any longer.
    expect(await delegate("0x0000000000000000000000000000000000000000")).toMatchObject({
      proxy_type: null,
      implementations: [],
    });
  });

  it("keeps an authority whose delegate emits events an account, not a contract", async () => {
    // anvil's fourth dev account, delegating to code that runs LOG0 then STOP.
    const account = privateKeyToAccount("0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6");
    const wallet = createWalletClient({ account, chain: foundry, transport: http(anvil.rpcUrl) });
    const emitter = "0x00000000000000000000000000000000000000cc";
    await client.request("anvil_setCode", [emitter, "0x60006000a000"]);
    const authorization = await wallet.signAuthorization({ contractAddress: emitter, executor: "self" });
    const hash = await wallet.sendTransaction({ authorizationList: [authorization], to: account.address });
    const receipt = (await waitForReceipt(client, hash)) as { logs?: { address: string }[] };
    expect(receipt.logs?.map((log) => log.address)).toEqual([account.address.toLowerCase()]);
    await chain.caughtUp();
    expect(await chain.addressOf(account.address)).toMatchObject({
      is_contract: false,
      proxy_type: "eip7702",
    });
  });
});
