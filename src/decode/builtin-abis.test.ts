import { type Abi, type Hex, pad, toEventSelector, toFunctionSelector } from "viem";
import { describe, expect, test } from "vitest";
import {
  aaveV3PoolAbi,
  builtinAbiIndex,
  builtinAbis,
  entryPoint06Abi,
  entryPoint07Abi,
  eventsOfLog,
  indexAbi,
  nonfungiblePositionManagerAbi,
  uniswapV3PoolAbi,
  weth9Abi,
} from "./builtin-abis.ts";

const names = (abi: readonly { type: string; name?: string }[], type: string) =>
  abi.filter((item) => item.type === type).map((item) => item.name);

describe("built-in ABIs", () => {
  test("come from the packages with the items the decoders rely on", () => {
    expect(names(uniswapV3PoolAbi, "event")).toEqual(
      expect.arrayContaining(["Mint", "Burn", "Collect", "Swap", "Initialize"]),
    );
    expect(names(aaveV3PoolAbi, "function")).toEqual(
      expect.arrayContaining(["supply", "borrow", "repay", "withdraw", "flashLoan", "liquidationCall"]),
    );
    expect(names(aaveV3PoolAbi, "event")).toEqual(expect.arrayContaining(["Supply", "LiquidationCall"]));
    expect(names(nonfungiblePositionManagerAbi, "function")).toEqual(
      expect.arrayContaining(["mint", "collect"]),
    );
    expect(names(weth9Abi, "event")).toEqual(expect.arrayContaining(["Deposit", "Withdrawal"]));
    expect(names(entryPoint06Abi, "function")).toContain("handleOps");
    expect(names(entryPoint07Abi, "event")).toContain("UserOperationEvent");
  });

  test("have distinct names", () => {
    expect(new Set(builtinAbis.map(({ name }) => name)).size).toBe(builtinAbis.length);
  });

  test("index functions, events and errors by selector", () => {
    expect(builtinAbiIndex.functions.get(toFunctionSelector("deposit()"))?.[0]?.name).toBe("deposit");
    const handleOps06 = toFunctionSelector(
      entryPoint06Abi.find((item) => item.type === "function" && item.name === "handleOps") as never,
    );
    expect(builtinAbiIndex.functions.get(handleOps06)).toHaveLength(1);
    const upgraded = toEventSelector("Upgraded(address)");
    expect(builtinAbiIndex.events.get(upgraded)?.[0]?.inputs[0]).toMatchObject({ name: "implementation" });
    expect(builtinAbiIndex.errors.get("0xe450d38c")?.[0]?.name).toBe("ERC20InsufficientBalance");
    expect(builtinAbiIndex.errors.get("0x118cdaa7")?.[0]?.name).toBe("OwnableUnauthorizedAccount");
  });

  test("keep one entry per distinct item; the token standards first", () => {
    const transfer = builtinAbiIndex.events.get(toEventSelector("Transfer(address,address,uint256)")) ?? [];
    // ERC-20's, ERC-721's and WETH9's (src, dst, wad); ERC-4626 and the position manager repeat them.
    expect(transfer.map((event) => event.inputs.map((input) => input.name).join(","))).toEqual([
      "from,to,value",
      "from,to,tokenId",
      "src,dst,wad",
    ]);
  });

  test("an event matches a log only with as many topics as it has indexed parameters plus one", () => {
    const topic0 = toEventSelector("Transfer(address,address,uint256)");
    const address = pad("0x01");
    const indexedNames = (topics: Hex[]) =>
      eventsOfLog(builtinAbiIndex, topics).map(
        (event) => event.inputs.filter((input) => input.indexed).length,
      );
    expect(indexedNames([topic0, address, address])).toEqual([2, 2]); // ERC-20's and WETH9's
    expect(indexedNames([topic0, address, address, address])).toEqual([3]);
    expect(indexedNames([topic0])).toEqual([]);
    expect(indexedNames([])).toEqual([]);
  });

  test("indexAbi keeps one index per ABI object and leaves anonymous events out", () => {
    const abi: Abi = [
      {
        type: "event",
        name: "Logged",
        anonymous: true,
        inputs: [{ name: "a", type: "uint256", indexed: true }],
      },
      { type: "event", name: "Seen", inputs: [{ name: "a", type: "uint256", indexed: true }] },
    ];
    expect(indexAbi(abi)).toBe(indexAbi(abi));
    expect([...indexAbi(abi).events.values()].flat().map((event) => event.name)).toEqual(["Seen"]);
  });
});
