-- 0007 is reserved for branch events-l45 (L4 summaries, L5 capabilities),
-- whose migration replaces this file at merge. Migrations must be
-- contiguous, so this branch carries an empty one until then.
SELECT 1;
