import { decodeAbiParameters, encodeDeployData, type Hex, parseAbi } from "viem";
import { callEachBytecode } from "./call-each-bytecode.ts";
import type { RpcClient } from "./client.ts";
import { isStateUnavailable, RpcInvalidAnswerError, RpcResponseError } from "./errors.ts";
import { type EthCallParameters, type EthCallReturnType, eth_call } from "./eth_call.ts";
import { readState } from "./read-state.ts";

export type CallEachParameters = EthCallParameters;
export type CallEachReturnType = EthCallReturnType;

const callEachAbi = parseAbi([
  "constructor(address[] targets, bytes[] data, uint256 gasEach, uint256 maxReturn)",
]);
const resultParameters = [
  { type: "uint256", name: "attempted" },
  { type: "bool[]", name: "ok" },
  { type: "bytes[]", name: "results" },
] as const;

/**
 * Calls per `eth_call`: their arguments stay under the 49,152 bytes of creation code a node runs
 * (EIP-3860); CallEach answers as many of them as its 24,576 bytes of return hold.
 */
const callsPerRequest = 250;
/** Gas each call may use: a name, symbol or supply costs tens of thousands. */
const gasEach = 5_000_000n;
/** CallEach cuts longer return data to this many bytes; those calls are made again plainly. */
const maxReturn = 1_024n;
/** The length of a `0x` hex string of `maxReturn` bytes: what a cut answer (or one exactly that long) is. */
const cutLength = 2 + 2 * Number(maxReturn);

/**
 * Makes many read-only calls at one block in one `eth_call` for up to 250 calls, through the creation
 * code of `contracts/CallEach.sol` (no contract is deployed): a node loads the block's state once per
 * request, where a batch of plain `eth_call`s loads it once per call (anvil: 15–50 ms for each past
 * block). Answers are as `eth_call` gives them: the return data, or an error (code 3) for a call the
 * contract failed. Where the node refuses such a call (a creation it will not run), the plain calls are
 * made instead, and so is each call whose return data CallEach may have cut (a long name or symbol).
 * @throws {RpcInvalidAnswerError} when the node returns something CallEach cannot have returned.
 */
export async function callEach(
  client: RpcClient,
  { calls, block }: CallEachParameters,
): Promise<CallEachReturnType> {
  const answers: CallEachReturnType = new Array(calls.length);
  const chunks: number[] = [];
  for (let start = 0; start < calls.length; start += callsPerRequest) chunks.push(start);
  await Promise.all(
    chunks.map(async (start) => {
      let from = start;
      const end = Math.min(start + callsPerRequest, calls.length);
      while (from < end) {
        const chunk = calls.slice(from, end);
        const [answer] = await readState<Hex>(
          client,
          [
            {
              method: "eth_call",
              params: [
                {
                  data: encodeDeployData({
                    abi: callEachAbi,
                    bytecode: callEachBytecode,
                    args: [chunk.map((call) => call.to), chunk.map((call) => call.data), gasEach, maxReturn],
                  }),
                },
              ],
              block,
            },
          ],
          // A node without that block's state is asked at its head (readState); any other refusal, even
          // one that might pass on a retry, is answered by the plain calls.
          (error) => !isStateUnavailable(error),
        );
        const attempted = typeof answer === "string" ? decodeAnswer(answer, chunk.length) : null;
        if (attempted === null || attempted.ok.length === 0) {
          // Refused, or too little gas for even one call: ask plainly.
          const plain = await eth_call(client, { calls: chunk, block });
          plain.forEach((result, i) => {
            answers[from + i] = result;
          });
          return;
        }
        const cut: { position: number; call: (typeof calls)[number] }[] = [];
        attempted.ok.forEach((ok, i) => {
          const result = attempted.results[i] as Hex;
          if (ok && result.length === cutLength)
            cut.push({ position: from + i, call: chunk[i] as (typeof calls)[number] });
          answers[from + i] = ok
            ? result
            : new RpcResponseError({ method: "eth_call", code: 3, message: "execution reverted" });
        });
        from += attempted.ok.length;
        if (cut.length > 0) {
          const whole = await eth_call(client, { calls: cut.map(({ call }) => call), block });
          cut.forEach(({ position }, i) => {
            answers[position] = whole[i] as Hex | RpcResponseError;
          });
        }
      }
    }),
  );
  return answers;
}

/** The attempted calls' outcomes, in order. */
function decodeAnswer(answer: Hex, count: number): { ok: readonly boolean[]; results: readonly Hex[] } {
  let decoded: readonly [bigint, readonly boolean[], readonly Hex[]];
  try {
    decoded = decodeAbiParameters(resultParameters, answer);
  } catch {
    throw new RpcInvalidAnswerError(
      `eth_call of CallEach returned what it cannot return: ${answer.slice(0, 80)}`,
    );
  }
  const [attempted, ok, results] = decoded;
  if (attempted > BigInt(count) || ok.length !== Number(attempted) || results.length !== ok.length) {
    throw new RpcInvalidAnswerError(
      `eth_call of CallEach answered ${attempted} of ${count} calls inconsistently`,
    );
  }
  return { ok, results };
}
