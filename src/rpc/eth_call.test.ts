import { describe, expect, it } from "vitest";
import { RpcResponseError } from "./errors.ts";
import { isContractFailure } from "./eth_call.ts";

const failure = (code: number, message: string) =>
  new RpcResponseError({ method: "eth_call", code, message });

describe("isContractFailure", () => {
  it("takes each node's wording of a contract's own failure, and no timeout", () => {
    const contractFailures = [
      failure(3, "execution reverted"),
      failure(-32000, "execution reverted: Ownable: caller is not the owner"),
      // geth and Erigon.
      failure(-32000, "invalid opcode: opcode 0xfe not defined"),
      failure(-32000, "out of gas"),
      failure(-32000, "stack underflow (0 <=> 1)"),
      failure(-32000, "invalid jump destination"),
      failure(-32000, "write protection"),
      // anvil and reth name revm's halt.
      failure(-32603, "EVM error OutOfGas"),
      failure(-32603, "EVM error InvalidFEOpcode"),
      failure(-32603, "EVM error OpcodeNotFound"),
      failure(-32603, "EVM error StackUnderflow"),
      failure(-32603, "EVM error InvalidJump"),
      // Nethermind.
      failure(-32015, "VM execution error."),
    ];
    for (const error of contractFailures) expect(isContractFailure(error), error.shortMessage).toBe(true);
    const nodeFailures = [
      failure(-32000, "execution aborted (timeout = 5s)"),
      failure(-32000, "context canceled"),
      failure(-32000, "context deadline exceeded"),
      failure(-32603, "request timed out"),
    ];
    for (const error of nodeFailures) {
      expect(isContractFailure(error), error.shortMessage).toBe(false);
      expect(error.retryable, error.shortMessage).toBe(true);
    }
  });
});
