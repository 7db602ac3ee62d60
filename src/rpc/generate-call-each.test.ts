import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { callEachModuleFile, renderCallEachModule } from "./generate-call-each.ts";

describe("the generated CallEach bytecode", () => {
  it("is what the installed solc makes of the source (run `npm run generate:call-each` after changing either)", () => {
    expect(readFileSync(callEachModuleFile, "utf8")).toBe(renderCallEachModule());
  });
});
