import { zeroAddress } from "viem";
import type { FindAddressesReturnType } from "../../db/queries/addresses.ts";
import { type TokenTransferRow, transferToken } from "../../db/queries/token-transfers.ts";
import { selectorMethod } from "../../decode/decode-input.ts";
import { timestamp } from "../format.ts";
import { renderAddress } from "./address.ts";
import { renderToken, renderTokenInstance } from "./token.ts";

/** The addresses of a token transfer that its rendering needs looked up. */
export function tokenTransferAddresses(row: TokenTransferRow): string[] {
  return [row.from_address, row.to_address];
}

/**
 * Renders a token transfer (BSW token_transfer_view.ex): `type` says mint, burn, spawn or transfer;
 * `total` takes the shape of the token's type. `ipfsPublicGateway` is the gateway of the instance's
 * `ipfs://` media links.
 */
export function renderTokenTransfer(
  row: TokenTransferRow,
  addresses: FindAddressesReturnType,
  ipfsPublicGateway: string,
) {
  const token = renderToken(transferToken(row));
  const decimals = token?.decimals ?? null;
  const instance =
    row.token_id === null
      ? null
      : renderTokenInstance({
          id: row.token_id,
          instance: row,
          holder: null,
          token,
          addresses,
          ipfsPublicGateway,
        });
  const total =
    row.token_type === "ERC-20"
      ? { decimals, value: row.amount }
      : row.token_type === "ERC-721"
        ? // The interface document gives every total a decimals and a value; one ERC-721 token moves.
          { token_id: row.token_id, token_instance: instance, decimals: null, value: "1" }
        : {
            token_id: row.token_id,
            value: row.amount ?? (row.token_id === null ? null : "1"),
            decimals,
            token_instance: instance,
          };
  const minted = row.from_address === zeroAddress;
  const burnt = row.to_address === zeroAddress;
  return {
    transaction_hash: row.transaction_hash,
    block_hash: row.block_hash,
    block_number: row.block_number,
    log_index: row.log_index,
    timestamp: timestamp(row.timestamp),
    method:
      row.input_selector === null
        ? null
        : selectorMethod(
            row.input_selector,
            row.transaction_to === null ? null : addresses.get(row.transaction_to)?.abi,
          ),
    from: renderAddress(row.from_address, addresses),
    to: renderAddress(row.to_address, addresses),
    token,
    token_type: row.token_type,
    total,
    type:
      minted && burnt
        ? "token_spawning"
        : minted
          ? "token_minting"
          : burnt
            ? "token_burning"
            : "token_transfer",
  };
}
