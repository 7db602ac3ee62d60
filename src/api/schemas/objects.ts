import {
  alwaysNull,
  boolean,
  checksummedAddress,
  decimal,
  demo,
  fullHash,
  hexData,
  integer,
  type JsonSchema,
  object,
  orNull,
  ref,
  refTo,
  string,
  timestamp,
  tokenTypeEnum,
} from "./common.ts";

const tagEntry = object({
  address_hash: string("Address the tag is attached to."),
  display_name: string("Tag as displayed."),
  label: string("Tag label."),
});

/** Blockscout's address object (BSW views/api/v2/helper.ex). */
const Address = object(
  {
    hash: checksummedAddress("The address, EIP-55 checksummed.", demo.caller),
    is_contract: boolean("The address has code."),
    is_verified: orNull(
      boolean(
        "A verified or imported ABI is known for it, or (an EIP-1167 clone, an EIP-7702 delegation) for its implementation; null when nothing but the hash is known.",
      ),
    ),
    name: orNull(string("Contract name or a configured label.", "ERC1967Proxy")),
    implementation_name: orNull(string("Name of the proxy's implementation contract.", "DemoBox")),
    implementations: {
      type: "array",
      description: "Implementations of a proxy, current first; `[]` when the address is not a proxy.",
      items: object({
        address_hash: checksummedAddress("Implementation address, checksummed.", demo.erc20),
        address: checksummedAddress("The same address under Blockscout's older name.", demo.erc20),
        name: orNull(string("Implementation contract name.", "DemoBox")),
      }),
    },
    proxy_type: orNull(
      string("Proxy pattern detected from code and storage.", "eip1967", {
        examples: ["eip1967", "eip1967_beacon", "eip1167", "eip1822", "eip7702"],
      }),
    ),
    ens_domain_name: orNull(string("ENS name; null unless known.")),
    metadata: orNull({
      ...object({
        tags: {
          type: "array",
          items: object({
            slug: string("Tag identifier."),
            name: string("Tag name."),
            tagType: string("Kind of tag."),
            ordinal: integer("Display order."),
            meta: { type: "object", description: "Free-form tag data." },
          }),
        },
      }),
      description: "Metadata tags of the address, or null.",
    }),
    is_scam: boolean("Always false."),
    reputation: string("Reputation of the address.", "ok", { enum: ["ok"] }),
    private_tags: { type: "array", description: "Private tags; `[]` here.", items: tagEntry },
    watchlist_names: {
      type: "array",
      description: "Watchlist names; `[]` here.",
      items: object({ display_name: string("Name as displayed."), label: string("Label.") }),
    },
    public_tags: { type: "array", description: "Public tags; `[]` here.", items: tagEntry },
  },
  { description: "An address and what is known of it." },
);

function token(countType: "string" | "integer"): JsonSchema {
  const count =
    countType === "string"
      ? decimal("Number of holders with a balance above zero.", "10")
      : integer("Number of holders with a balance above zero.", 10);
  return object(
    {
      address_hash: checksummedAddress("Token contract address, checksummed.", demo.erc20),
      address: checksummedAddress("Same as `address_hash` (older Blockscout name).", demo.erc20),
      name: orNull(string("Token name; null when the contract does not say.", "Sextant Demo Token")),
      symbol: orNull(string("Token symbol; null when the contract does not say.", "SDT")),
      decimals: orNull(decimal("Decimals, as a string; null when the contract does not say.", "18")),
      type: string("Token standard.", "ERC-20", { enum: tokenTypeEnum }),
      holders_count: { ...count },
      holders: { ...count, description: "Same as `holders_count` (older Blockscout name)." },
      total_supply: orNull(
        decimal("Total supply in the smallest unit; null when unknown.", "100985999999999999999622"),
      ),
      exchange_rate: alwaysNull("Price in USD."),
      circulating_market_cap: alwaysNull("Circulating market cap in USD."),
      circulating_supply: alwaysNull("Circulating supply."),
      volume_24h: alwaysNull("Trading volume of the last 24 hours in USD."),
      icon_url: alwaysNull("Token icon URL."),
      reputation: string("Reputation of the token.", "ok", { enum: ["ok"] }),
    },
    {
      description:
        countType === "string"
          ? "A token contract (BSW token_view.ex)."
          : "A token contract; `holders_count` is an integer here, as the interface document says for the address tokens list.",
    },
  );
}

const instanceProperties: Record<string, JsonSchema> = {
  id: decimal("Token id.", "28"),
  is_unique: orNull(boolean("Exactly one unit of this id exists, held by one address.")),
  holder_address_hash: orNull(
    checksummedAddress(
      "Holder the instance is listed for, checksummed; null outside holder lists.",
      demo.holder,
    ),
  ),
  owner: refTo("Address", "The holder when the id is unique, else null.", { nullable: true }),
  token: refTo("Token", "The token, or null where the enclosing item carries it.", { nullable: true }),
  metadata: orNull({
    type: "object",
    description:
      'The decoded JSON metadata of the id (`data:`, `ipfs://` or `http(s)` token URI); `{"error": ...}` when fetching failed; null when not fetched.',
    examples: [{ name: "Sextant Demo Collectible #28", attributes: [{ value: 236, trait_type: "Hue" }] }],
  }),
  image_url: orNull(
    string(
      "Image URL from the metadata (`ipfs://` mapped to the public gateway, `IPFS_PUBLIC_GATEWAY_URL`).",
    ),
  ),
  animation_url: orNull(string("Animation URL from the metadata (`ipfs://` mapped as `image_url`).")),
  external_app_url: orNull(string("`external_url` from the metadata.")),
  media_url: orNull(string("The media reference as the metadata gives it: image first, then animation.")),
  media_type: alwaysNull("MIME type of the media."),
  thumbnails: alwaysNull("Thumbnail URLs by size.", "object"),
};

const TokenInstance = object(instanceProperties, { description: "One id of an NFT (or ERC-404) token." });

const NftCollectionInstance = object(
  {
    token_type: string("Token standard.", "ERC-721", { enum: ["ERC-721", "ERC-1155", "ERC-404"] }),
    value: decimal("Units of the id held (`1` for ERC-721).", "1"),
    ...instanceProperties,
  },
  { description: "An id held, in an NFT collection listing." },
);

const decodedValue: JsonSchema = {
  description:
    "A decoded value: a string (numbers as decimal digits, addresses checksummed, bytes as hex), or an array for arrays and tuples.",
  anyOf: [{ type: "string" }, { type: "boolean" }, { type: "array", items: ref("DecodedValue") }],
};

function decodedCall(what: "input" | "log"): JsonSchema {
  return object(
    {
      method_call: string(
        what === "log"
          ? "The event's signature with parameter names."
          : "The function's signature with parameter names.",
        what === "log"
          ? "Transfer(address indexed from, address indexed to, uint256 value)"
          : "transfer(address to, uint256 value)",
      ),
      method_id: string(
        "Selector (4 bytes) or topic prefix, hex without `0x`.",
        what === "log" ? "ddf252ad" : "a9059cbb",
        {
          pattern: "^[0-9a-f]{8}$",
        },
      ),
      parameters: {
        type: "array",
        items: object({
          name: string("Parameter name.", "value"),
          type: string("Solidity type.", "uint256"),
          ...(what === "log" ? { indexed: boolean("The parameter is an indexed topic.") } : {}),
          value: refTo("DecodedValue", "The value."),
        }),
      },
    },
    { description: what === "log" ? "A log decoded with a known ABI." : "Input decoded with a known ABI." },
  );
}

const Action = object(
  {
    protocol: string("Protocol that emitted the action.", "uniswap_v3", {
      examples: ["uniswap_v3", "aave_v3"],
    }),
    type: string("Kind of action.", "swap", {
      examples: ["mint", "burn", "collect", "swap", "mint_nft", "supply", "borrow", "liquidation_call"],
    }),
    data: {
      type: "object",
      description:
        "Action data; amounts scaled by token decimals. For `liquidation_call`: debt_amount, debt_symbol, debt_address, collateral_amount, collateral_symbol, collateral_address (strings), block_number (integer).",
      additionalProperties: {
        anyOf: [{ type: "string" }, { type: "number" }, { type: "array", items: { type: "string" } }],
      },
      examples: [
        {
          amount0: "1.5",
          symbol0: "SDT",
          address0: demo.erc20,
          amount1: "0.3",
          symbol1: "SDH",
          address1: demo.erc404,
        },
      ],
    },
  },
  { description: "A decoded protocol action (Blockscout's `{protocol, type, data}`)." },
);

const TokenTransfer = object(
  {
    transaction_hash: fullHash("Transaction that made the transfer.", demo.transaction),
    block_hash: fullHash("Block of the transfer.", demo.block),
    block_number: integer("Block number.", 382),
    log_index: integer("Index of the log in its block; a flattened ERC-1155 batch repeats it.", 0),
    timestamp: timestamp("Block time."),
    method: orNull(
      string("Called function: decoded name, else its `0x` selector; null when unknown.", "0x23b872dd"),
    ),
    from: refTo("Address", "Sender; the zero address for a mint."),
    to: refTo("Address", "Recipient; the zero address for a burn."),
    token: refTo("Token", "The token; null when not yet read.", { nullable: true }),
    token_type: string("Token standard of the transfer.", "ERC-20", { enum: tokenTypeEnum }),
    total: {
      description:
        "Amount moved, shaped by the token type: ERC-20 `{decimals, value}`; ERC-721 `{token_id, token_instance, decimals, value}` (decimals null, value 1); ERC-1155 and ERC-404 `{token_id, value, decimals, token_instance}`.",
      anyOf: [
        object(
          {
            decimals: orNull(decimal("Token decimals.", "18")),
            value: orNull(decimal("Amount in the smallest unit.", "5000000000000000000")),
          },
          { title: "ERC-20 total" },
        ),
        object(
          {
            token_id: orNull(decimal("Token id.", "26")),
            token_instance: refTo("TokenInstance", "The id's instance.", { nullable: true }),
            decimals: alwaysNull(
              "ERC-721 has no decimals; sent because the interface document gives every total one.",
            ),
            value: decimal("One token moves.", "1"),
          },
          { title: "ERC-721 total" },
        ),
        object(
          {
            token_id: orNull(decimal("Token id; null for an ERC-404 fungible transfer.", "127")),
            value: orNull(decimal("Units moved.", "1")),
            decimals: orNull(decimal("Token decimals.")),
            token_instance: refTo("TokenInstance", "The id's instance.", { nullable: true }),
          },
          { title: "ERC-1155 / ERC-404 total" },
        ),
      ],
    },
    type: string("What the transfer did.", "token_transfer", {
      enum: ["token_transfer", "token_minting", "token_burning", "token_spawning"],
    }),
  },
  { description: "A token transfer (BSW token_transfer_view.ex); an ERC-1155 batch is one item per id." },
);

const Transaction = object(
  {
    hash: fullHash("Transaction hash.", demo.transaction),
    block_number: integer("Block number.", 387),
    block_hash: fullHash("Block hash.", demo.block),
    position: integer("Index of the transaction in its block.", 4),
    timestamp: timestamp("Block time."),
    confirmations: integer("Indexed head − block_number + 1.", 4),
    confirmation_duration: {
      type: "array",
      description: "`[0, average block time]` in milliseconds.",
      items: { type: "number" },
      minItems: 2,
      maxItems: 2,
      examples: [[0, 10]],
    },
    status: orNull(
      string("Receipt status; null when unknown (a receipt from before Byzantium, untraced).", "ok", {
        enum: ["ok", "error"],
      }),
    ),
    result: string(
      "`success`, or why it failed (`Reverted`, `out of gas`, ...); `awaiting_internal_transactions` while the failure's reason, or (before Byzantium) the status itself, waits for a trace.",
      "success",
    ),
    revert_reason: {
      description:
        'Null unless the transaction reverted with data; then, as Blockscout writes it, the decoded error (`Error(string)`, `Panic(uint256)`, custom errors of known ABIs) as a decoded input, else `{"raw": hex}`.',
      anyOf: [{ type: "null" }, ref("DecodedInput"), object({ raw: orNull(hexData("The revert data.")) })],
    },
    from: refTo("Address", "Sender."),
    to: refTo("Address", "Recipient; null for a contract creation.", { nullable: true }),
    created_contract: refTo("Address", "Contract the transaction created, else null.", { nullable: true }),
    value: decimal("Value in wei.", "0"),
    fee: object(
      {
        type: string("`actual` once mined (gas_used × effective gas price), else `maximum`.", "actual", {
          enum: ["maximum", "actual"],
        }),
        value: decimal("Fee in wei.", "26683000186781"),
      },
      { description: "The fee." },
    ),
    nonce: integer("Sender nonce.", 221),
    type: integer("EIP-2718 transaction type.", 2),
    gas_limit: integer("Gas limit (an integer, as the interface document says).", 26683),
    gas_used: decimal("Gas used.", "26683"),
    gas_price: orNull(decimal("Effective gas price in wei.", "1000000007")),
    base_fee_per_gas: orNull(decimal("Base fee of the block in wei.", "7")),
    max_fee_per_gas: orNull(decimal("EIP-1559 max fee per gas.", "1000000007")),
    max_priority_fee_per_gas: orNull(decimal("EIP-1559 max priority fee per gas.", "1000000000")),
    priority_fee: orNull(decimal("min(max_priority_fee, max_fee − base_fee) × gas_used.", "26683000000000")),
    transaction_burnt_fee: orNull(decimal("base_fee × gas_used.", "186781")),
    raw_input: hexData("Input data.", "0x1757a8ca"),
    method: orNull(
      string(
        "Decoded function name, else the `0x` selector when the input has 4 bytes or more and `to` has code, else null.",
        "0x1757a8ca",
      ),
    ),
    decoded_input: refTo("DecodedInput", "Input decoded with a known ABI, else null.", { nullable: true }),
    token_transfers: {
      type: "array",
      description: "The first 10 token transfers of the transaction.",
      maxItems: 10,
      items: ref("TokenTransfer"),
    },
    token_transfers_overflow: boolean("More than 10 token transfers exist."),
    transaction_types: {
      type: "array",
      description: "What the transaction did.",
      items: {
        type: "string",
        enum: ["token_transfer", "contract_creation", "contract_call", "token_creation", "coin_transfer"],
      },
      examples: [["contract_call"]],
    },
    has_error_in_internal_transactions: orNull(boolean("An internal call failed; null when not traced.")),
    actions: {
      type: "array",
      description: "Decoded protocol actions (Uniswap v3, Aave v3); `[]` when none.",
      items: ref("Action"),
    },
    authorization_list: {
      type: "array",
      description: "EIP-7702 authorizations (Blockscout's field); `[]` here.",
      items: { type: "object" },
    },
    exchange_rate: alwaysNull("Native coin price in USD."),
    historic_exchange_rate: alwaysNull("Native coin price in USD at the block's time."),
    transaction_tag: alwaysNull("Private transaction tag."),
    is_pending_update: boolean("Blockscout is refetching the transaction; always false."),
    fhe_operations_count: {
      type: "integer",
      description: "Fully homomorphic encryption operations in the transaction (Blockscout's field); 0 here.",
      examples: [0],
    },
  },
  { description: "A transaction in Blockscout's list form, with the interface document's types." },
);

const Log = object(
  {
    address: refTo("Address", "Contract that emitted the log."),
    address_hash: refTo("Address", "Same as `address` (the interface document's name)."),
    smart_contract: refTo("Address", "The transaction's `to`; null for a contract creation.", {
      nullable: true,
    }),
    block_hash: fullHash("Block hash.", "0x263bb2faabef1268583ba5db4742ee665c728d4925d82b7e31c78402a1963d8a"),
    block_number: integer("Block number.", 382),
    block_timestamp: timestamp("Block time."),
    transaction_hash: fullHash(
      "Transaction hash.",
      "0xe2a851d363ce488f9f94e29023ccf41c9e2b7951e6fd69b272b55d8cfe14878e",
    ),
    index: integer("Index of the log in its block.", 0),
    data: hexData("Non-indexed data.", "0x0000000000000000000000000000000000000000000000004563918244f40000"),
    topics: {
      type: "array",
      description: "Four topics, missing ones null.",
      minItems: 4,
      maxItems: 4,
      items: orNull(fullHash("A topic.")),
      examples: [
        [
          demo.transferTopic,
          "0x0000000000000000000000003c44cdddb6a900fa2b585dd299e03d12fa4293bc",
          "0x000000000000000000000000a0ee7a142d267c1f36714e4a8f75612f20a79720",
          null,
        ],
      ],
    },
    decoded: refTo("DecodedLog", "The log decoded with a known ABI, else null.", { nullable: true }),
  },
  { description: "A log (event) emitted by a contract." },
);

const Withdrawal = object(
  {
    index: integer("Withdrawal index (global, increasing).", 15),
    validator_index: integer("Validator index.", 7),
    receiver: refTo("Address", "Address credited."),
    amount: decimal("Amount in wei (the node reports gwei).", "1000000000000000000"),
    block_number: integer("Block that carried the withdrawal.", 12),
    timestamp: timestamp("Block time."),
  },
  { description: "A beacon-chain withdrawal (the union of Blockscout's block and address views)." },
);

const InternalTransaction = object(
  {
    block_number: integer("Block number.", 389),
    block_index: integer("Position of the call among all internal calls of the block.", 1),
    transaction_hash: fullHash(
      "Transaction hash.",
      "0x45f62d1da8dfa5c9a653fd9bb747cf624436aa30aaa8b432c277f22892c424e2",
    ),
    transaction_index: integer("Index of the transaction in its block.", 0),
    index: integer("Index of the call in its transaction's trace (0 is the top-level call).", 1),
    timestamp: timestamp("Block time."),
    type: string("Kind of frame.", "create", {
      examples: ["call", "delegatecall", "staticcall", "callcode", "create", "create2", "selfdestruct"],
    }),
    from: refTo("Address", "Caller."),
    to: refTo("Address", "Callee; null for a create.", { nullable: true }),
    created_contract: refTo("Address", "Contract created by a create frame, else null.", { nullable: true }),
    value: decimal("Value moved in wei.", "5000000000000000"),
    gas_limit: decimal(
      "Gas given to the frame (a string); `0` for a selfdestruct, which is given none.",
      "5212",
    ),
    success: boolean("The frame did not fail."),
    error: orNull(string("Why the frame failed (`reverted`, `out of gas`, ...).", "reverted")),
  },
  { description: "An internal transaction (a frame of a transaction's trace)." },
);

const HolderItem = object(
  {
    address: refTo("Address", "The holder."),
    address_hash: refTo("Address", "Same as `address` (the interface document's name)."),
    value: decimal("Balance in the smallest unit.", "9995499999999999999969"),
    token_id: orNull(decimal("Token id for ERC-1155 and ERC-404 ids; null for a fungible balance.", "1")),
  },
  { description: "A holder of a token, or of one of its ids." },
);

const AddressTokenBalance = object(
  {
    token: refTo("AddressTokenBalanceToken", "The token (`holders_count` an integer here)."),
    token_id: orNull(
      decimal("Token id of an ERC-1155 or ERC-404 id row; null for a token-level balance.", "1"),
    ),
    token_instance: refTo(
      "TokenInstance",
      "The id's instance, for ERC-1155 and ERC-404 id rows; else null.",
      {
        nullable: true,
      },
    ),
    value: decimal(
      "Balance: the smallest unit, or the number of ids held for ERC-721.",
      "9995499999999999999969",
    ),
  },
  { description: "A token balance of an address." },
);

const NftCollection = object(
  {
    token: refTo("Token", "The collection's token."),
    amount: decimal("ERC-721 balance, or the number of distinct ids held (ERC-1155, ERC-404).", "5"),
    token_instances: {
      type: "array",
      description: "At most 9 ids held, token id descending.",
      maxItems: 9,
      items: ref("NftCollectionInstance"),
    },
  },
  { description: "An NFT collection an address holds ids of." },
);

/** The objects the endpoints return, by component name. */
export const objectSchemas: Record<string, JsonSchema> = {
  Address,
  Token: token("string"),
  AddressTokenBalanceToken: token("integer"),
  TokenInstance,
  NftCollectionInstance,
  DecodedValue: decodedValue,
  DecodedInput: decodedCall("input"),
  DecodedLog: decodedCall("log"),
  Action,
  TokenTransfer,
  Transaction,
  Log,
  Withdrawal,
  InternalTransaction,
  HolderItem,
  AddressTokenBalance,
  NftCollection,
};
