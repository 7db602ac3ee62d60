-- A token's type only ever becomes ERC-404 (an ERC-20 or ERC-721 emitting the other Transfer form too). The
-- block that made it so, and the type it had before, let a reorganization that orphans that block give the
-- type back. Tokens promoted before this migration keep null: their promotion is not taken back.
ALTER TABLE tokens ADD COLUMN promoted_at_block bigint;
ALTER TABLE tokens ADD COLUMN type_before_promotion text;
-- A reorganization finds the promotions it takes back without reading every token.
CREATE INDEX tokens_promoted_at_block ON tokens (promoted_at_block) WHERE promoted_at_block IS NOT NULL;
