-- Whether a contract is a pool its Uniswap v3 factory created, asked for every page (endpoints 2 and 7) that
-- shows a pool's events, is read by the pool's address: the second word of the factory's `PoolCreated` log.
-- Before, each such page read every log the factory had emitted (tens of thousands on mainnet, 18 ms for
-- 50,000 here) to find its pools among them. The event's selector is the same for the factory's every
-- deployment and fork, so the index holds only those logs.
CREATE INDEX logs_pool_created ON logs (substring(data FROM 45 FOR 20))
  WHERE topic0 = '\x783cca1c0412dd0d695e784568c96da2e9c22ff989357a2e8b1d9b2b4e6b7118';
