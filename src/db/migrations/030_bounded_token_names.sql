-- Token names and symbols are cut to 255 bytes of UTF-8 when read (readTokenMetadata), as Blockscout cuts
-- them: a contract can answer any length, and every page showing the token carries it. Names stored before
-- are cut the same way, at the start of a character: the longest start of at most 255 characters whose
-- UTF-8 fits 255 bytes.
UPDATE tokens SET name = (
  SELECT left(name, max(k)) FROM generate_series(0, 255) k WHERE octet_length(left(name, k)) <= 255
) WHERE octet_length(name) > 255;

UPDATE tokens SET symbol = (
  SELECT left(symbol, max(k)) FROM generate_series(0, 255) k WHERE octet_length(left(symbol, k)) <= 255
) WHERE octet_length(symbol) > 255;
