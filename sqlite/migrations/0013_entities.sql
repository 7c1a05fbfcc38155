-- 0013: the people and named things a memory is by or about (REC-28): its
-- speaker, the names its text mentions and its writer's aliases, a JSON
-- array; NULL for none (and for memories written before, whose names
-- recall finds in their text when it ranks them).
ALTER TABLE memories ADD COLUMN entities TEXT;
