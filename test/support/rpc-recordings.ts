import { readFileSync } from "node:fs";
import { join } from "node:path";
import { at } from "./elements.ts";

/** Real JSON-RPC recordings kept with the tests; `test/fixtures/README.md` says where they come from. */
export const rpcFixturesDirectory = join(import.meta.dirname, "../fixtures/rpc");

/** One recorded JSON-RPC exchange: the request sent and the node's answer. */
export type RecordedExchange = {
  request: { method: string; params: unknown[] };
  response: { result?: unknown; error?: unknown };
};

/** Reads a recording (`[{request, response}]`); `path` is relative to `test/fixtures/rpc/`. */
export function readRecording(path: string): RecordedExchange[] {
  return JSON.parse(readFileSync(join(rpcFixturesDirectory, path), "utf8"));
}

/** The node's answer to the first request of a recording; `path` is relative to `test/fixtures/rpc/`. */
export function recordedResult<T>(path: string): T {
  return at(readRecording(path), 0, path).response.result as T;
}
