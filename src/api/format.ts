import { type Address, bytesToHex, checksumAddress, type Hex } from "viem";

/** bytea from either driver (Buffer or Uint8Array) as lowercase `0x` hex; null stays null. */
export function hex(bytes: Uint8Array): Hex;
export function hex(bytes: Uint8Array | null): Hex | null;
export function hex(bytes: Uint8Array | null): Hex | null {
  return bytes === null ? null : bytesToHex(bytes);
}

/** An address as EIP-55 checksummed text. */
export function checksummed(bytes: Uint8Array): Address {
  return checksumAddress(bytesToHex(bytes) as Address);
}

/** Unix seconds as Blockscout's timestamp: `2024-05-01T12:00:00.000000Z`. */
export function timestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
