-- 0012: when what a memory says stopped holding (REC-27), unix nanoseconds:
-- the writer's valid_to, or the time a later memory contradicted it. NULL
-- while it holds. Read with the other columns by recall and list as of a
-- time; no index: as_of narrows what the other conditions find.
ALTER TABLE memories ADD COLUMN valid_to INTEGER;
