import { describe, expect, it } from "vitest";
import { ConfigError, configOptions, loadConfig, parseCommandLine } from "./config.ts";

describe("loadConfig: the hosts token URIs may reach", () => {
  it("keeps token URIs from reserved addresses unless told otherwise, and takes further CIDR ranges", () => {
    expect(loadConfig({ env: {} })).toMatchObject({ metadataHostFiltering: true, metadataCidrBlacklist: [] });
    const config = loadConfig({
      env: { INDEXER_TOKEN_INSTANCE_CIDR_BLACKLIST: "8.8.8.0/24, 2001:db8::/32" },
      flags: { "metadata-host-filtering": "false" },
    });
    expect(config).toMatchObject({
      metadataHostFiltering: false,
      metadataCidrBlacklist: ["8.8.8.0/24", "2001:db8::/32"],
    });
  });

  it("refuses a range that is not CIDR, naming it", () => {
    expect(() =>
      loadConfig({ env: { INDEXER_TOKEN_INSTANCE_CIDR_BLACKLIST: "8.8.8.0/24,8.8.8.8/33" } }),
    ).toThrow(
      new ConfigError(
        'INDEXER_TOKEN_INSTANCE_CIDR_BLACKLIST must be a comma-separated list of CIDR ranges, got "8.8.8.8/33"',
      ),
    );
  });
});

describe("loadConfig: the IPFS gateways", () => {
  it("takes the public gateway apart from the one metadata is fetched through, ipfs.io's by default", () => {
    expect(loadConfig({ env: {} })).toMatchObject({
      ipfsGateway: "https://ipfs.io/ipfs/",
      ipfsPublicGateway: "https://ipfs.io/ipfs/",
    });
    const fromEnv = loadConfig({
      env: {
        IPFS_GATEWAY_URL: "http://10.0.0.5:8080/ipfs",
        IPFS_PUBLIC_GATEWAY_URL: "https://cdn.test/ipfs",
      },
    });
    expect(fromEnv).toMatchObject({
      ipfsGateway: "http://10.0.0.5:8080/ipfs",
      ipfsPublicGateway: "https://cdn.test/ipfs",
    });
    const fromFlag = loadConfig({
      env: { IPFS_PUBLIC_GATEWAY_URL: "https://cdn.test/ipfs" },
      flags: { "ipfs-public-gateway": "https://other.test/ipfs/" },
    });
    expect(fromFlag.ipfsPublicGateway).toBe("https://other.test/ipfs/");
  });

  it("refuses a public gateway that is not an http(s) URL, naming it", () => {
    expect(() => loadConfig({ env: { IPFS_PUBLIC_GATEWAY_URL: "ipfs.io/ipfs" } })).toThrow(
      new ConfigError('IPFS_PUBLIC_GATEWAY_URL must be a URL, got "ipfs.io/ipfs"'),
    );
    expect(() => loadConfig({ flags: { "ipfs-public-gateway": "ftp://ipfs.test/" } })).toThrow(
      new ConfigError('--ipfs-public-gateway must use http: or https:, got "ftp://ipfs.test/"'),
    );
  });
});

describe("parseCommandLine", () => {
  it("takes every flag as --name value and as --name=value", () => {
    for (const { flag } of configOptions) {
      expect(parseCommandLine(["serve", `--${flag}`, "v"]).flags).toEqual({ [flag]: "v" });
      expect(parseCommandLine(["serve", `--${flag}=v=w`]).flags).toEqual({ [flag]: "v=w" });
    }
    const line = parseCommandLine(["abi", "import", "abi.json", "--address=0x01", "--port=8080", "-h"]);
    expect(line).toEqual({
      positionals: ["abi", "import", "abi.json"],
      flags: { port: "8080" },
      address: "0x01",
      help: true,
    });
    expect(loadConfig({ env: {}, flags: line.flags }).port).toBe(8080);
  });

  it.each([
    [["serve", "-p", "5"], "unknown option -p"],
    [["serve", "-port", "5"], "unknown option -port"],
    [["serve", "-p=5"], "unknown option -p"],
    [["serve", "--prot=5"], "unknown option --prot"],
    [["serve", "--address", "0x01"], "unknown option --address"],
    [["serve", "--port"], "--port needs a value"],
    [["abi", "import", "abi.json", "--address"], "--address needs a value"],
  ])("refuses %j, naming the option as it was written", (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(new ConfigError(message));
  });
});

describe("configOptions: the defaults --help shows", () => {
  it("writes each default as its flag takes it: given back, it makes the configuration the default does", () => {
    const shown = configOptions.filter((option) => option.default !== undefined);
    // Durations in their largest unit, lists comma-separated: read back, not merely printed.
    expect(shown.find(({ flag }) => flag === "replica-max-lag")?.default).toBe("5m");
    expect(shown.find(({ flag }) => flag === "entry-points-v07")?.default).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(shown.length).toBeGreaterThan(25);
    const byDefault = loadConfig({ env: {} });
    for (const { flag, default: written } of shown)
      expect(loadConfig({ env: {}, flags: { [flag]: written as string } }), flag).toEqual(byDefault);
  });
});
