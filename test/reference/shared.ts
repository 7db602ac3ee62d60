import { existsSync } from "node:fs";
import { join } from "node:path";

/** The project's shared material, beside the repository: only `npm run test:reference` reads it. */
export const sharedDirectory = join(import.meta.dirname, "../../../shared");

/** The path of a file or folder of `../shared`; throws, saying what is missing, where there is none. */
export function sharedPath(relative: string): string {
  const path = join(sharedDirectory, relative);
  if (!existsSync(path))
    throw new Error(
      `${path} is missing: the reference suite needs the shared material beside the repository`,
    );
  return path;
}
