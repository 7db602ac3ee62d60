import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sharedPath } from "./shared.ts";

/** Real responses of eth.blockscout.com, WireMock format (`response.body` is the JSON text). */
const recordingsDirectory = "reference/recorded-eth-mainnet";

/** A recorded response: the request path and the parsed body. */
export type Recording = { path: string; body: unknown };

/** One recorded response; `file` is its name in `../shared/reference/recorded-eth-mainnet/`. */
export function readRecording(file: string): Recording {
  const recorded = JSON.parse(readFileSync(join(sharedPath(recordingsDirectory), file), "utf8"));
  return {
    path: recorded.request.url ?? recorded.request.urlPath,
    body: JSON.parse(recorded.response.body),
  };
}

/** Every recorded response with a JSON body. */
export function readRecordings(): Recording[] {
  return readdirSync(sharedPath(recordingsDirectory))
    .filter((file) => file.endsWith(".json"))
    .map((file) => readRecording(file));
}

/**
 * The keys every recorded occurrence of an object carries, by shape path: `item`, `item.token`,
 * `item.token_instances[]`, ... A key absent from some occurrence is optional in Blockscout and not
 * required. `total` is told apart by the item's token type (its shape depends on it), and NFT
 * `metadata` and decoded parameters are free-form, so they are not looked into.
 */
export type RecordedShapes = Map<string, Set<string>>;

const freeForm = new Set(["metadata", "parameters", "data"]);

function shapePath(parent: string, key: string, owner: Record<string, unknown>): string {
  if (key !== "total") return `${parent}.${key}`;
  const token = owner.token as { type?: string } | null | undefined;
  return `${parent}.total<${owner.token_type ?? token?.type}>`;
}

/** The recorded shapes of the items of the given recordings (bodies with `items`). */
export function recordedItemShapes(recordings: Recording[]): RecordedShapes {
  const shapes: RecordedShapes = new Map();
  for (const { body } of recordings) {
    for (const item of (body as { items: unknown[] }).items) {
      walk(item, "item", (path, record) => {
        const keys = new Set(Object.keys(record));
        const known = shapes.get(path);
        shapes.set(path, known ? new Set([...known].filter((key) => keys.has(key))) : keys);
      });
    }
  }
  return shapes;
}

/**
 * The keys a value lacks against the recorded shapes: for each object of `value` at a path the
 * recordings also have, the recorded keys it does not carry (as `path.key`).
 */
export function missingRecordedKeys(value: unknown, shapes: RecordedShapes, path = "item"): string[] {
  const missing: string[] = [];
  walk(value, path, (at, record) => {
    for (const key of shapes.get(at) ?? []) if (!(key in record)) missing.push(`${at}.${key}`);
  });
  return [...new Set(missing)];
}

/** Visits every object inside `value` with its shape path. */
function walk(value: unknown, path: string, visit: (path: string, record: Record<string, unknown>) => void) {
  if (Array.isArray(value)) {
    for (const entry of value) walk(entry, `${path}[]`, visit);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const record = value as Record<string, unknown>;
  visit(path, record);
  for (const [key, child] of Object.entries(record)) {
    if (!freeForm.has(key)) walk(child, shapePath(path, key, record), visit);
  }
}
