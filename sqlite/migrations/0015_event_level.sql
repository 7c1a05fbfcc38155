-- 0015: an event's security level (SEC-11), its writer's or the
-- classifier's at append; NULL for events appended before, which the
-- Service classifies when it reads them (the classifier reads only what
-- the row holds, so the level is the one an append would have given).
ALTER TABLE events ADD COLUMN security_level TEXT;
