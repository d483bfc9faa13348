-- Provider login codes get their own verification purpose instead of rows of "sessions" whose id
-- starts with "login-code:". Safe to run again and through a transaction-mode pooler: no session
-- state, and each statement is idempotent.
ALTER TYPE "verification_purpose" ADD VALUE IF NOT EXISTS 'LOGIN_CODE';

-- The old rows live two minutes at most and the new value cannot be used in the transaction that
-- adds it: they are dropped as expired (a sign-in in flight just asks the user to try again).
DELETE FROM "sessions" WHERE "id" LIKE 'login-code:%';
