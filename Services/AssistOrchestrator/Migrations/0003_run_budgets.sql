-- Budgets of model calls (HearthAssist's PostgresBudgetLedger). Amounts are US cents, kept as
-- numeric so sums of fractional cents stay exact. The assist-orchestrator's migrations include
-- this file verbatim: change it only by adding a new migration.
CREATE TABLE IF NOT EXISTS run_budgets (
    key text PRIMARY KEY,
    limit_cents numeric NOT NULL CHECK (limit_cents >= 0),
    limit_tokens bigint NOT NULL CHECK (limit_tokens >= 0),
    spent_cents numeric NOT NULL DEFAULT 0,
    spent_tokens bigint NOT NULL DEFAULT 0,
    reserved_cents numeric NOT NULL DEFAULT 0 CHECK (reserved_cents >= 0),
    reserved_tokens bigint NOT NULL DEFAULT 0 CHECK (reserved_tokens >= 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per call in flight: settling deletes it, which makes a second settle a no-op, and a
-- row left behind by a crashed process can be found by its age and charged in full.
CREATE TABLE IF NOT EXISTS run_budget_reservations (
    id uuid PRIMARY KEY,
    key text NOT NULL REFERENCES run_budgets (key) ON DELETE CASCADE,
    cents numeric NOT NULL,
    tokens bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS run_budget_reservations_created_at ON run_budget_reservations (created_at);
