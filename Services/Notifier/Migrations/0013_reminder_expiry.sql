-- A reminder not worth sending after a moment (an account deletion code, good for ten minutes):
-- the dispatcher cancels it instead of delivering it late, and APNs is told to drop it then.
ALTER TABLE reminders ADD COLUMN expires_at timestamptz;
