-- 009 keyed each topic index by the topic's last 8 bytes, which tell apart the values ABIs align right
-- (addresses, numbers, hashes) but not those aligned left: a selector padded to 32 bytes, a bytes32 string,
-- zero. Those all end in zero bytes and shared one key, so a search for one of them walked every log of
-- the emitter that had any of them at that position (MakerDAO's LogNote: the call's selector as topic0, an
-- ilk name as topic2). Keyed by the first 8 bytes of the topic's SHA-256, every value has a range of its
-- own, in entries of the same size.
DROP INDEX logs_topic0;
DROP INDEX logs_topic1;
DROP INDEX logs_topic2;
DROP INDEX logs_topic3;
CREATE INDEX logs_topic0 ON logs (address, substring(sha256(topic0) FOR 8), block_number, log_index) WHERE topic0 IS NOT NULL;
CREATE INDEX logs_topic1 ON logs (address, substring(sha256(topic1) FOR 8), block_number, log_index) WHERE topic1 IS NOT NULL;
CREATE INDEX logs_topic2 ON logs (address, substring(sha256(topic2) FOR 8), block_number, log_index) WHERE topic2 IS NOT NULL;
CREATE INDEX logs_topic3 ON logs (address, substring(sha256(topic3) FOR 8), block_number, log_index) WHERE topic3 IS NOT NULL;
