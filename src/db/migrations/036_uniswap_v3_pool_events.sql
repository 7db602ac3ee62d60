-- A page of transactions (endpoint 2) and a transaction's summary ask each transaction for its Uniswap v3
-- pools' events, whatever pool emitted them, to tell its actions. Read through the transaction's range of
-- logs, a page of airdrops read all of their logs (50,000 for 50 transactions of 1,000) to find none. These
-- events are found here by the transaction's range instead, only they in the index: Mint, Burn, Collect and
-- Swap, whose selectors are the same for every deployment and fork. The events asked with their emitter are
-- read from that emitter's indexes (its address's, 001; its first topic's, 009).
CREATE INDEX logs_uniswap_v3_pool_events ON logs (block_number, log_index)
  WHERE topic0 IN (
    '\x7a53080ba414158be7ec69b987b5fb7d07dee101fe85488f0853ae16239d0bde',
    '\x0c396cd989a39f4459b5fa1aed6a9a8dcdbc45908acfd67e028cd568da98982c',
    '\x70935338e69775456a85ddef226c395fb668b63fa0115f5f20610b388e6ca9c0',
    '\xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67'
  );
