import { type Address, type Hex, pad, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../demo/anvil.ts";
import { createMetrics } from "../metrics.ts";
import { callEach } from "./call-each.ts";
import { createRpcClient, type RpcClient } from "./client.ts";
import { eth_call } from "./eth_call.ts";

/** Runtime code set with anvil_setCode: each contract answers every call the same way. */
const codes = {
  /** Returns the word 42. */
  answers: "0x602a60005260206000f3",
  /** Reverts without data. */
  reverts: "0x60006000fd",
  /** Loops until its gas is gone. */
  burnsGas: "0x5b600056",
  /** Returns 1,000 zero bytes. */
  answersLong: "0x6103e86000f3",
  /** Returns 2,000 zero bytes: more than CallEach keeps of one answer. */
  answersLonger: "0x6107d06000f3",
} as const satisfies Record<string, Hex>;

describe("callEach", () => {
  let anvil: Anvil;
  let client: RpcClient;
  const contracts = {} as Record<keyof typeof codes, Address>;

  beforeAll(async () => {
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl });
    for (const [i, [name, code]] of Object.entries(codes).entries()) {
      const address = pad(toHex(0x5e000 + i), { size: 20 });
      await client.request("anvil_setCode", [address, code]);
      contracts[name as keyof typeof codes] = address;
    }
    await client.request("evm_mine", []);
  }, 60_000);
  afterAll(() => anvil?.stop());

  it("answers every call as eth_call does, in order, past gas burners and answers too long for one request or for CallEach", async () => {
    const account = pad("0x1234", { size: 20 });
    // Enough gas burners that a request runs out of gas for the next call, and enough long answers that
    // they do not fit in what one request returns: the rest are asked for again.
    const targets: Address[] = [contracts.answers, contracts.reverts, account, contracts.burnsGas];
    for (let i = 0; i < 60; i++) targets.push(i % 6 === 0 ? contracts.burnsGas : contracts.answers);
    for (let i = 0; i < 30; i++) targets.push(contracts.answersLong);
    targets.push(contracts.reverts, contracts.answersLonger, contracts.answers, contracts.answersLonger);
    const calls = targets.map((to, i) => ({ to, data: toHex(i, { size: 4 }) }));
    const head = await client.request<{ number: Hex; hash: Hex }>("eth_getBlockByNumber", ["latest", false]);
    const block = { number: BigInt(head.number), hash: head.hash };

    const metrics = createMetrics();
    const counted = createRpcClient({ url: anvil.rpcUrl, metrics });
    const together = await callEach(counted, { calls, block });
    const plain = await eth_call(client, { calls, block });

    // Asked again for the calls left unattempted; a refused CallEach would have fallen back to one
    // eth_call per call.
    const sent = (await metrics.rpcCalls.get()).values.find((value) => value.labels.method === "eth_call");
    expect(sent?.value).toBeGreaterThanOrEqual(3);
    expect(sent?.value).toBeLessThan(10);
    expect(together.filter((answer) => answer === pad("0x", { size: 1000 })).length).toBe(30);
    expect(together.filter((answer) => answer === pad("0x", { size: 2000 })).length).toBe(2);

    const outcome = (answer: unknown) => (typeof answer === "string" ? answer : "failed");
    expect(together.map(outcome)).toEqual(plain.map(outcome));
    expect(together.length).toBe(calls.length);
    expect(together.filter((answer) => answer === pad("0x2a")).length).toBe(
      targets.filter((to) => to === contracts.answers).length,
    );
    expect(outcome(together[2])).toBe("0x");
    expect(together.filter((answer) => typeof answer !== "string").length).toBe(
      targets.filter((to) => to === contracts.reverts || to === contracts.burnsGas).length,
    );
  });

  it("answers more calls than one request holds in a few requests", async () => {
    const calls = Array.from({ length: 600 }, (_, i) => ({
      to: i % 3 === 0 ? contracts.reverts : contracts.answers,
      data: toHex(i, { size: 4 }),
    }));
    const head = await client.request<{ number: Hex; hash: Hex }>("eth_getBlockByNumber", ["latest", false]);
    const block = { number: BigInt(head.number), hash: head.hash };
    const metrics = createMetrics();
    const together = await callEach(createRpcClient({ url: anvil.rpcUrl, metrics }), { calls, block });

    expect(together.map((answer) => (typeof answer === "string" ? answer : "failed"))).toEqual(
      calls.map((call) => (call.to === contracts.answers ? pad("0x2a") : "failed")),
    );
    // 600 plain calls had the fallback been taken.
    const sent = (await metrics.rpcCalls.get()).values.find((value) => value.labels.method === "eth_call");
    expect(sent?.value).toBeLessThanOrEqual(12);
  });
});
