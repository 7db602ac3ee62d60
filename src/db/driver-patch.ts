import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** What `patches/postgres+3.4.9.patch` writes into the driver's source, beside each change. */
const patchMark = "Sextant's patch";

/**
 * Whether the installed PostgreSQL driver carries `patches/`, which npm applies when it installs
 * (`patch-package`, the `postinstall` script). An install that skipped scripts (`npm ci --ignore-scripts`)
 * lacks it: the process would end at the first connection lost under a transaction.
 *
 * @param source - The driver's connection module; the installed one by default.
 */
export function isDriverPatched(source?: string): boolean {
  try {
    // Inside the try: a Node without `import.meta.resolve` (before 20.6) cannot tell; it warns, and starts.
    const file = source ?? fileURLToPath(new URL("connection.js", import.meta.resolve("postgres")));
    return readFileSync(file, "utf8").includes(patchMark);
  } catch {
    return false;
  }
}
