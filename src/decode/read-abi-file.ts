import { readFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { type Abi, type Address, isAddress, parseAbiItem, parseAbiParameters } from "viem";
import { formatAbiItem, formatAbiParams } from "viem/utils";
import { BaseError } from "../errors.ts";

/** A file that is not an importable ABI; the message says which file and why. */
export class AbiFileError extends BaseError {
  override name = "AbiFileError";
  override readonly isUserError = true;
  readonly file: string;

  constructor(file: string, reason: string, parameters: { cause?: unknown } = {}) {
    super(`${file}: ${reason}`, parameters);
    this.file = file;
  }
}

/** How the ABI was given: plain ABI JSON, or a Sourcify-style `metadata.json`. */
export type AbiSource = "abi" | "metadata";

export type ReadAbiFileParameters = {
  /** The contract's address, overriding what the file or its path says. */
  address?: Address;
};

export type ReadAbiFileReturnType = {
  /** Lowercase; from the parameters, the file's content, its name (`<address>.json`) or Sourcify path. */
  address: Address;
  /** The contract name, null when the file gives none. */
  name: string | null;
  abi: Abi;
  source: AbiSource;
};

const definitionTypes = new Set(["function", "event", "error", "constructor", "fallback", "receive"]);

/**
 * Reads an operator's ABI file: a plain ABI array (the address from a file named `<address>.json`), an
 * object `{ "address", "name", "abi" }` (a build artifact's `contractName` names it too), or a
 * Sourcify-style `metadata.json` (`output.abi`, the name from `settings.compilationTarget`, the address
 * from the Sourcify layout `.../<chainId>/<address>/metadata.json`). Every ABI entry is checked with viem.
 * @throws {AbiFileError} when the file cannot be read, is not JSON, holds no valid ABI or no address.
 */
export async function readAbiFile(
  file: string,
  { address: given }: ReadAbiFileParameters = {},
): Promise<ReadAbiFileReturnType> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new AbiFileError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AbiFileError(file, `is not JSON (${(error as Error).message})`, { cause: error });
  }
  const { abi, name, address, source } = contentOf(file, json);
  const valid = validAbi(file, abi);
  const found = given ?? address ?? addressInPath(file, source);
  if (!found) {
    throw new AbiFileError(
      file,
      source === "metadata"
        ? "gives no address: keep it at <chainId>/<address>/metadata.json or pass --address"
        : "gives no address: name it <address>.json, give an object with an address, or pass --address",
    );
  }
  return { address: found.toLowerCase() as Address, name, abi: valid, source };
}

function contentOf(
  file: string,
  json: unknown,
): { abi: unknown; name: string | null; address: Address | null; source: AbiSource } {
  if (Array.isArray(json)) return { abi: json, name: null, address: null, source: "abi" };
  if (typeof json !== "object" || json === null)
    throw new AbiFileError(file, "is neither an ABI array nor an object holding one");
  const object = json as Record<string, unknown>;
  const output = object.output as Record<string, unknown> | undefined;
  if (output && typeof output === "object" && "abi" in output) {
    const target = (object.settings as { compilationTarget?: unknown } | undefined)?.compilationTarget;
    const names = target && typeof target === "object" ? Object.values(target) : [];
    return {
      abi: output.abi,
      name: typeof names[0] === "string" ? names[0] : null,
      address: null,
      source: "metadata",
    };
  }
  if (!("abi" in object)) throw new AbiFileError(file, 'is an object without "abi" (nor "output.abi")');
  if (object.address !== undefined && !(typeof object.address === "string" && isAddress(object.address)))
    throw new AbiFileError(file, `has an invalid "address": ${JSON.stringify(object.address)}`);
  const name = object.name ?? object.contractName;
  return {
    abi: object.abi,
    name: typeof name === "string" && name !== "" ? name : null,
    address: (object.address as Address | undefined) ?? null,
    source: "abi",
  };
}

/** `<address>.json` for plain ABIs; Sourcify's `<chainId>/<address>/metadata.json` for metadata. */
function addressInPath(file: string, source: AbiSource): Address | null {
  const candidate = source === "metadata" ? basename(dirname(file)) : basename(file, ".json");
  return isAddress(candidate, { strict: false }) ? candidate : null;
}

function validAbi(file: string, abi: unknown): Abi {
  if (!Array.isArray(abi)) throw new AbiFileError(file, "has an ABI that is not an array");
  abi.forEach((item, i) => {
    const type = (item as { type?: unknown } | null)?.type;
    if (typeof type !== "string" || !definitionTypes.has(type))
      throw new AbiFileError(file, `ABI entry ${i} has no valid "type" (${JSON.stringify(type)})`);
    if (type === "fallback" || type === "receive") return;
    const entry = item as { inputs?: unknown; outputs?: unknown; name?: unknown };
    try {
      if (!Array.isArray(entry.inputs)) throw new Error('"inputs" is not an array');
      if (type === "constructor") {
        if (entry.inputs.length > 0) parseAbiParameters(formatAbiParams(entry.inputs));
        return;
      }
      if (typeof entry.name !== "string") throw new Error('"name" is missing');
      if (entry.outputs !== undefined && !Array.isArray(entry.outputs))
        throw new Error('"outputs" is not an array');
      // The signature round trip makes viem check every type name, tuples included.
      parseAbiItem(`${type} ${formatAbiItem(item as Abi[number])}`);
      if (Array.isArray(entry.outputs) && entry.outputs.length > 0)
        parseAbiParameters(formatAbiParams(entry.outputs));
    } catch (error) {
      const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message;
      throw new AbiFileError(
        file,
        `ABI entry ${i} (${type} ${String(entry.name ?? "")}) is invalid: ${reason}`,
        {
          cause: error,
        },
      );
    }
  });
  return abi as Abi;
}
