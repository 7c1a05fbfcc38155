-- 0004: reserved for 0004_bm25 (branch pgparity), which replaces this file
-- when both are merged: migration versions run 1, 2, ... without gaps, and
-- this branch's event layers are 0005. It changes nothing.
SELECT 1;
