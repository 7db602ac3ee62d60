import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { abiModulesDirectory, renderAbiModules } from "./generate-abis.ts";

describe("the generated ABI modules", () => {
  it("are exactly what the installed packages give (run `npm run generate:abis` after updating one)", () => {
    const expected = renderAbiModules();
    expect(readdirSync(abiModulesDirectory).sort()).toEqual(Object.keys(expected).sort());
    for (const [file, text] of Object.entries(expected)) {
      expect(readFileSync(join(abiModulesDirectory, file), "utf8"), file).toBe(text);
    }
  });
});
