import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { erc20Abi, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderAddress } from "../src/api/views/address.ts";
import { importAbis, writeContractAbi } from "../src/db/import-abis.ts";
import { findAddresses } from "../src/db/queries/addresses.ts";
import { AbiFileError, readAbiFile } from "../src/decode/read-abi-file.ts";
import { createAbiDirWatcher } from "../src/indexer/watch-abi-dir.ts";
import { createLogger } from "../src/logger.ts";
import { createTestDatabase, databaseKinds, pgliteDataDir, type TestDatabase } from "./support/databases.ts";

const plain = "0x1111111111111111111111111111111111111111";
const named = "0x2222222222222222222222222222222222222222";
const sourcify = "0x3333333333333333333333333333333333333333";
const proxy = "0x4444444444444444444444444444444444444444";
const transferAbi = erc20Abi.filter((item) => item.type === "event" || item.name === "transfer");

function writeFixtures(folder: string) {
  writeFileSync(join(folder, `${plain}.json`), JSON.stringify(transferAbi));
  writeFileSync(join(folder, "named.json"), JSON.stringify({ address: named, name: "Named", abi: erc20Abi }));
  const contract = join(folder, "31337", getAddress(sourcify));
  mkdirSync(join(contract, "sources"), { recursive: true });
  writeFileSync(
    join(contract, "metadata.json"),
    JSON.stringify({
      compiler: { version: "0.8.24" },
      language: "Solidity",
      output: { abi: transferAbi },
      settings: { compilationTarget: { "contracts/Token.sol": "SourcifyToken" } },
    }),
  );
  // Sourcify keeps more beside the metadata; it is not an ABI and is left alone.
  writeFileSync(join(contract, "immutable-references.json"), "{}");
}

describe.each(databaseKinds)("importing operator ABIs on %s", (kind) => {
  let test: TestDatabase;
  let folder: string;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    folder = mkdtempSync(join(tmpdir(), "sextant-abis-"));
    writeFixtures(folder);
  });
  afterAll(async () => {
    await test?.drop();
    rmSync(folder, { recursive: true, force: true });
  });

  it("imports a folder of plain ABIs and Sourcify metadata, reporting a bad file without stopping", async () => {
    writeFileSync(join(folder, "broken.json"), "[{");
    const { imported, failed } = await importAbis(test.db, { path: folder });
    rmSync(join(folder, "broken.json"));
    expect(imported.map(({ address, name, source }) => ({ address, name, source }))).toEqual([
      { address: plain, name: null, source: "abi" },
      { address: sourcify, name: "SourcifyToken", source: "metadata" },
      { address: named, name: "Named", source: "abi" },
    ]);
    expect(failed.map((error) => error.shortMessage)).toEqual([
      expect.stringMatching(/broken\.json: is not JSON/),
    ]);

    const known = await findAddresses(test.db, [plain, named, sourcify]);
    expect(renderAddress(sourcify, known)).toMatchObject({
      hash: getAddress(sourcify),
      is_verified: true,
      name: "SourcifyToken",
      proxy_type: null,
      implementations: [],
    });
    expect(renderAddress(named, known)).toMatchObject({ is_verified: true, name: "Named" });
    expect(renderAddress(plain, known)).toMatchObject({ is_verified: true, name: null });
  });

  it("names a proxy's implementation and decodes the proxy with the implementation's ABI", async () => {
    await test.db.query(
      "INSERT INTO proxies (address, block_number, proxy_type, implementation) VALUES ($1, 7, 'eip1967', $2)",
      [Buffer.from(proxy.slice(2), "hex"), Buffer.from(named.slice(2), "hex")],
    );
    expect(renderAddress(proxy, await findAddresses(test.db, [proxy]))).toMatchObject({
      is_verified: false,
      name: null,
      proxy_type: "eip1967",
      implementation_name: "Named",
      implementations: [{ address_hash: getAddress(named), name: "Named" }],
    });
    const unknown = "0x5555555555555555555555555555555555555555";
    const withAbis = await findAddresses(test.db, [named], { withAbis: [proxy, sourcify, unknown] });
    expect([...withAbis.keys()].sort()).toEqual([named, sourcify, proxy].sort());
    expect(withAbis.get(proxy)).toMatchObject({ abi: erc20Abi, implementations: [{ name: "Named" }] });
    expect(withAbis.get(sourcify)).toMatchObject({ abi: transferAbi, name: "SourcifyToken" });
    // Only the addresses asked carry their ABIs.
    expect(withAbis.get(named)?.abi).toBeNull();
    expect((await findAddresses(test.db, [proxy])).get(proxy)?.abi).toBeNull();

    // A verified proxy keeps its own ABI first and still decodes its implementation's calls.
    await writeContractAbi(test.db, {
      address: proxy,
      name: "ProxyItself",
      abi: transferAbi,
      source: "abi",
      file: "proxy.json",
    });
    expect((await findAddresses(test.db, [], { withAbis: [proxy] })).get(proxy)).toMatchObject({
      abi: [...transferAbi, ...erc20Abi],
      name: "ProxyItself",
    });
  });

  it("gives the same ABI object page after page, until the ABI is imported again", async () => {
    const abiOf = async (address: string) =>
      (await findAddresses(test.db, [], { withAbis: [address] })).get(address)?.abi;
    // The same object, so that its index by selector is built once, not on every page.
    const first = await abiOf(proxy);
    expect(await abiOf(proxy)).toBe(first);
    await writeContractAbi(test.db, {
      address: named,
      name: "Named",
      abi: transferAbi,
      source: "abi",
      file: "n.json",
    });
    expect(await abiOf(proxy)).toEqual([...transferAbi, ...transferAbi]);
    expect(await abiOf(named)).toEqual(transferAbi);
  });
});

describe("the watched ABI folder", () => {
  it("imports what is there at start and each file that appears later", async () => {
    const test = await createTestDatabase("pglite");
    const folder = join(mkdtempSync(join(tmpdir(), "sextant-abi-dir-")), "abis");
    const controller = new AbortController();
    try {
      const watcher = createAbiDirWatcher({
        db: test.db,
        folder,
        logger: createLogger("silent"),
        debounceMs: 20,
      });
      const running = watcher.run(controller.signal);
      const verified = async (address: string) =>
        (await findAddresses(test.db, [address])).get(address)?.is_verified === true;
      // The folder is created when missing; then a file dropped into it is imported while running.
      await expect.poll(() => existsSync(folder)).toBe(true);
      writeFileSync(join(folder, `${plain}.json`), JSON.stringify(transferAbi));
      await expect.poll(() => verified(plain), { timeout: 10_000 }).toBe(true);
      controller.abort();
      await running;
    } finally {
      await test.drop();
      rmSync(dirname(folder), { recursive: true, force: true });
    }
  });
});

describe("reading an ABI file", () => {
  const folder = mkdtempSync(join(tmpdir(), "sextant-abi-file-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it.each([
    ["not-json.json", "nope", /is not JSON/],
    ["number.json", "42", /is neither an ABI array nor an object/],
    [
      `${plain}.json`,
      JSON.stringify([{ type: "function", name: "f", inputs: [{ type: "uint257" }] }]),
      /ABI entry 0 \(function f\) is invalid/,
    ],
    [`${plain}.json`, JSON.stringify([{ type: "banana" }]), /ABI entry 0 has no valid "type"/],
    ["no-address.json", JSON.stringify(transferAbi), /gives no address: name it <address>\.json/],
    ["bad-address.json", JSON.stringify({ address: "0x12", abi: [] }), /invalid "address"/],
  ])("refuses %s with a clear message", async (name, content, message) => {
    const file = join(folder, name);
    writeFileSync(file, content);
    const error = await readAbiFile(file).catch((caught) => caught);
    expect(error).toBeInstanceOf(AbiFileError);
    expect(error.shortMessage).toMatch(message);
    expect(error.shortMessage.startsWith(file)).toBe(true);
  });

  it("takes the address given for a file that does not say it", async () => {
    const file = join(folder, "unnamed.json");
    writeFileSync(file, JSON.stringify(transferAbi));
    expect(await readAbiFile(file, { address: getAddress(named) })).toMatchObject({ address: named });
  });
});

describe("sextant abi import", () => {
  const cli = join(import.meta.dirname, "../bin/sextant.js");
  const dataDir = pgliteDataDir("sextant-abi-cli-");
  const run = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [cli, "abi", "import", ...args, "--data-dir", dataDir, "--log-level", "silent"],
      {
        encoding: "utf8",
        env: { ...process.env, DATABASE_URL: "" },
      },
    );
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("prints one line per contract and exits 0, or names the bad file and exits 2", () => {
    const file = join(dataDir, "token.json");
    writeFileSync(file, JSON.stringify({ name: "Token", abi: erc20Abi }));
    const good = run(file, "--address", named);
    expect(good.stderr).toBe("");
    expect(good.status).toBe(0);
    expect(good.stdout).toBe(`imported ${named} Token from ${file} (${erc20Abi.length} ABI entries)\n`);

    const bad = join(dataDir, "bad.json");
    writeFileSync(bad, "[1]");
    const failed = run(bad);
    expect(failed.status).toBe(2);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toBe(
      `sextant: ${bad}: ABI entry 0 has no valid "type" (undefined)\nsextant: 1 of 1 ABI files not imported\n`,
    );
    // A path that is not there is said before any database is made.
    const missing = join(dataDir, "missing.json");
    const untouched = join(dataDir, "untouched");
    const absent = spawnSync(process.execPath, [cli, "abi", "import", missing, "--data-dir", untouched], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: "" },
    });
    expect(absent.status).toBe(2);
    expect(absent.stderr).toBe(`sextant: ${missing}: does not exist (ENOENT)\n`);
    expect(existsSync(untouched)).toBe(false);
  });
});
