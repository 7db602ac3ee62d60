-- Endpoint 3's topic filter (any position) as index range scans: per position, an address's logs by the
-- topic's last 8 bytes (enough to tell topics apart; an address topic's first 12 bytes are zeros) in block
-- order. The full topic is checked on the row. 8 bytes instead of 32 keep each entry near the size of
-- logs_address's; a missing topic takes no entry.
CREATE INDEX logs_topic0 ON logs (address, substring(topic0 FROM 25), block_number, log_index) WHERE topic0 IS NOT NULL;
CREATE INDEX logs_topic1 ON logs (address, substring(topic1 FROM 25), block_number, log_index) WHERE topic1 IS NOT NULL;
CREATE INDEX logs_topic2 ON logs (address, substring(topic2 FROM 25), block_number, log_index) WHERE topic2 IS NOT NULL;
CREATE INDEX logs_topic3 ON logs (address, substring(topic3 FROM 25), block_number, log_index) WHERE topic3 IS NOT NULL;
