import { type FSWatcher, watch } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Queryable } from "../db/client.ts";
import { abiFilesIn, type ImportAbisReturnType, importAbis } from "../db/import-abis.ts";
import type { Logger } from "../logger.ts";
import { untilAborted } from "../signals.ts";

export type CreateAbiDirWatcherParameters = {
  db: Queryable;
  /** The operator's ABI folder; created when missing. */
  folder: string;
  logger: Logger;
  /** Quiet time after the last change before the changed files are imported (editors write in bursts). */
  debounceMs?: number;
};

export type AbiDirWatcher = {
  /** Imports the whole folder, then each new or changed file, until `signal` aborts. Never throws. */
  run(signal: AbortSignal): Promise<void>;
};

/**
 * Creates the watcher of the operator's ABI folder: everything in it is imported at start, then files
 * that appear or change are imported while Sextant runs. A bad file, or a failing database, is logged
 * and the watcher goes on: ABIs only add names and decoding, never block indexing. A removed file keeps
 * its ABI (as `sextant abi import` would).
 */
export function createAbiDirWatcher({
  db,
  folder,
  logger,
  debounceMs = 200,
}: CreateAbiDirWatcherParameters): AbiDirWatcher {
  const log = logger.child({ abiDir: folder });

  async function importAndLog(path: string) {
    let result: ImportAbisReturnType;
    try {
      result = await importAbis(db, { path });
    } catch (error) {
      log.warn({ err: error, path }, "ABI import failed");
      return;
    }
    for (const { address, name, file } of result.imported) log.info({ address, name, file }, "ABI imported");
    for (const error of result.failed) log.warn({ file: error.file }, error.shortMessage);
  }

  /** The changed path, if it is something to import: a folder, or a file `abiFilesIn` would take. */
  async function importable(path: string): Promise<boolean> {
    const info = await stat(path).catch(() => null);
    if (info?.isDirectory()) return true;
    if (!info?.isFile()) return false;
    return (await abiFilesIn(dirname(path)).catch((): string[] => [])).includes(path);
  }

  return {
    async run(signal) {
      try {
        await mkdir(folder, { recursive: true });
      } catch (error) {
        log.warn({ err: error }, "cannot create the ABI folder; not watching it");
        return;
      }
      const changed = new Set<string>();
      let timer: NodeJS.Timeout | undefined;
      let importing = Promise.resolve();
      const flush = () => {
        const paths = [...changed];
        changed.clear();
        importing = importing.then(async () => {
          for (const path of paths) if (await importable(path)) await importAndLog(path);
        });
      };
      let watcher: FSWatcher;
      try {
        // Watching first: a file written while the folder is being imported is not missed.
        watcher = watch(folder, { recursive: true }, (_event, name) => {
          if (name === null) return;
          changed.add(join(folder, name.toString()));
          clearTimeout(timer);
          timer = setTimeout(flush, debounceMs);
        });
      } catch (error) {
        log.warn({ err: error }, "cannot watch the ABI folder; importing it once");
        await importAndLog(folder);
        return;
      }
      watcher.on("error", (error) => log.warn({ err: error }, "watching the ABI folder failed"));
      await importAndLog(folder);
      await untilAborted(signal);
      clearTimeout(timer);
      watcher.close();
      await importing;
    },
  };
}
