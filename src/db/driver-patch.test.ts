import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isDriverPatched } from "./driver-patch.ts";

describe("isDriverPatched", () => {
  it("finds the patch npm applied to the installed driver", () => {
    expect(isDriverPatched()).toBe(true);
  });

  it("tells a driver installed without it, or none", () => {
    const folder = mkdtempSync(join(tmpdir(), "sextant-driver-"));
    const source = join(folder, "connection.js");
    writeFileSync(source, "function nextWrite(fn) {\n  const x = socket.write(chunk, fn)\n}\n");
    expect(isDriverPatched(source)).toBe(false);
    expect(isDriverPatched(join(folder, "absent.js"))).toBe(false);
  });
});
