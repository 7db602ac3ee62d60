import { type Address, parseEther } from "viem";
import {
  abiOf,
  type ContractName,
  call,
  deployData,
  deployed,
  requireContractAddress,
  type Scenario,
  type ScenarioContracts,
} from "./context.ts";
import { hybridGas, hybridSeed } from "./hybrid.ts";
import { mineAlone, mineTogether, type PlannedTransaction } from "./mine.ts";

/**
 * Deploys the demo's own contracts, one block each, and the counter's proxy; then seeds every account with
 * the ERC-20 tokens and the hybrid in one busy block.
 */
export async function deploy(scenario: Scenario): Promise<void> {
  const [owner] = scenario.accounts;
  const { contracts } = scenario;
  const deployments: [keyof ScenarioContracts, ContractName, unknown[]][] = [
    ["token", "DemoToken", [owner]],
    ["collectible", "DemoCollectible", [owner]],
    ["multiToken", "DemoMultiToken", [owner, multiTokenUri()]],
    ["implementation", "CounterV1", []],
    ["playground", "Playground", []],
    ["hybrid", "DemoHybrid", [owner]],
    ["bytes32Token", "DemoBytes32Token", [owner]],
    ["revertingNameToken", "DemoRevertingNameToken", [owner]],
  ];
  for (const [key, contractName, args] of deployments) {
    const receipt = await mineAlone(scenario, {
      from: owner,
      data: deployData(scenario, contractName, args),
      fees: key === "token" ? "legacy" : "eip1559",
      example: "contractCreation",
    });
    contracts[key] = requireContractAddress(receipt);
  }

  const initialize = call(scenario, "CounterV1", "initialize", [owner, 0n]);
  const proxyDeployment = await mineAlone(scenario, {
    from: owner,
    data: deployData(scenario, "CounterProxy", [contracts.implementation, initialize]),
  });
  contracts.proxy = requireContractAddress(proxyDeployment);
  contracts.relay = (await scenario.publicClient.readContract({
    address: deployed(scenario, "playground"),
    abi: abiOf(scenario, "Playground"),
    functionName: "relay",
  })) as Address;

  // Seed every account with tokens in a single busy block.
  await mineTogether(
    scenario,
    scenario.accounts.flatMap((holder, index): PlannedTransaction[] => [
      {
        from: owner,
        to: contracts.token,
        data: call(scenario, "DemoToken", "mint", [holder, parseEther("10000")]),
        example: "tokenMint",
      },
      {
        from: owner,
        to: contracts.bytes32Token,
        data: call(scenario, "DemoBytes32Token", "mint", [holder, parseEther("5000")]),
      },
      {
        from: owner,
        to: contracts.revertingNameToken,
        data: call(scenario, "DemoRevertingNameToken", "mint", [holder, parseEther("5000")]),
      },
      {
        // 2.5, 6, 4.5, ... units: whole units become NFTs, the fractions do not.
        from: owner,
        to: contracts.hybrid,
        data: call(scenario, "DemoHybrid", "mint", [holder, hybridSeed[index % hybridSeed.length]]),
        gas: hybridGas,
      },
    ]),
  );
}

function multiTokenUri(): string {
  const metadata = {
    name: "Sextant Demo Multi-Token",
    description: "Fungible and semi-fungible demo items.",
  };
  return `data:application/json;base64,${Buffer.from(JSON.stringify(metadata)).toString("base64")}`;
}
