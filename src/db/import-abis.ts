import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Address } from "viem";
import { AbiFileError, type ReadAbiFileReturnType, readAbiFile } from "../decode/read-abi-file.ts";
import { BaseError } from "../errors.ts";
import type { Queryable } from "./client.ts";
import { byteaParam } from "./table-rows.ts";

/** Some files of an import were bad (each is reported on its own); the CLI exits with code 2. */
export class AbiImportIncompleteError extends BaseError {
  override name = "AbiImportIncompleteError";
  override readonly isUserError = true;
}

export type ImportAbisParameters = {
  /** A file, or a folder whose ABI files are all imported (see abiFilesIn). */
  path: string;
  /** The contract's address, for a single file that does not say it. */
  address?: Address;
};

/** One contract imported, with the file it came from. */
export type ImportedAbi = ReadAbiFileReturnType & { file: string };

export type ImportAbisReturnType = {
  imported: ImportedAbi[];
  /** Files that could not be imported; the others still are. */
  failed: AbiFileError[];
};

/**
 * The ABI files `path` names: itself, or those of the folder it is ({@link abiFilesIn}).
 * @throws {AbiFileError} when `path` does not exist, or `address` is given with a folder.
 */
export async function abiFilesAt(path: string, { address }: { address?: string } = {}): Promise<string[]> {
  const full = resolve(path);
  const info = await stat(full).catch((error: NodeJS.ErrnoException) => {
    throw new AbiFileError(full, `does not exist (${error.code ?? "error"})`, { cause: error });
  });
  if (info.isDirectory() && address)
    throw new AbiFileError(full, "is a folder: --address goes with a single file");
  return info.isDirectory() ? abiFilesIn(full) : [full];
}

/**
 * Imports operator ABIs into `contract_abis`: each contract is then verified and named by its contract
 * name. A file imported again replaces what its address had. Bad files are returned, not thrown, so one
 * bad file in a folder does not keep the others out.
 * @throws {AbiFileError} when `path` does not exist, or `address` is given with a folder.
 */
export async function importAbis(
  db: Queryable,
  { path, address }: ImportAbisParameters,
): Promise<ImportAbisReturnType> {
  const files = await abiFilesAt(path, { address });
  const result: ImportAbisReturnType = { imported: [], failed: [] };
  for (const file of files) {
    try {
      const contract = await readAbiFile(file, { address });
      await writeContractAbi(db, { ...contract, file });
      result.imported.push({ ...contract, file });
    } catch (error) {
      if (!(error instanceof AbiFileError)) throw error;
      result.failed.push(error);
    }
  }
  return result;
}

export type WriteContractAbiParameters = ImportedAbi;

/**
 * Stores one contract's ABI, replacing what its address had. The JSON travels as text (see the metadata
 * fetcher): postgres.js would encode a string bound straight to jsonb a second time.
 */
export async function writeContractAbi(
  db: Queryable,
  { address, name, abi, source, file }: WriteContractAbiParameters,
): Promise<void> {
  await db.query(
    `INSERT INTO contract_abis (address, name, abi, source, file) VALUES ($1, $2, $3::text::jsonb, $4, $5)
     ON CONFLICT (address) DO UPDATE SET name = excluded.name, abi = excluded.abi, source = excluded.source,
       file = excluded.file, imported_at = now()`,
    [byteaParam(address), name, JSON.stringify(abi), source, file],
  );
}

/**
 * The ABI files under `folder`, sorted: every `.json` file, except that in a Sourcify contract folder (one
 * holding a `metadata.json`) only the metadata counts, not the other files Sourcify keeps beside it.
 */
export async function abiFilesIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const sourcify = entries.some((entry) => entry.isFile() && entry.name === "metadata.json");
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && !sourcify) files.push(...(await abiFilesIn(path)));
    else if (entry.isFile() && entry.name.endsWith(".json") && (!sourcify || entry.name === "metadata.json"))
      files.push(path);
  }
  return files.sort();
}
