import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook delivery: one row per (status-change event, API key) — the outbox, written by a checkpointed consumer of
 * the log — and one row per delivery attempt (the delivery log). An endpoint that answers 410 is disabled on its key.
 */
export class Webhooks1763770300000 implements MigrationInterface {
  name = 'Webhooks1763770300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN webhook_disabled_at timestamptz NULL,
        ADD COLUMN webhook_disabled_reason text NULL`);
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id                uuid PRIMARY KEY,
        webhook_id        text NOT NULL UNIQUE,
        event_id          text NOT NULL,
        api_key_id        uuid NOT NULL REFERENCES api_keys (id),
        request_id        text NOT NULL,
        sequence          bigint NOT NULL,
        status            text NOT NULL,
        body              text NOT NULL,
        state             text NOT NULL DEFAULT 'pending'
                          CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts          integer NOT NULL DEFAULT 0,
        next_attempt_at   timestamptz NOT NULL,
        leased_until      timestamptz NULL,
        event_created_at  timestamptz NOT NULL,
        created_at        timestamptz NOT NULL DEFAULT now(),
        first_attempt_at  timestamptz NULL,
        last_attempt_at   timestamptz NULL,
        delivered_at      timestamptz NULL,
        last_status_code  integer NULL,
        last_error        text NULL,
        CONSTRAINT webhook_deliveries_event_key UNIQUE (event_id, api_key_id)
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries (api_key_id, request_id, sequence)
         WHERE state = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_state_idx ON webhook_deliveries (state, created_at)`,
    );
    await queryRunner.query(`
      CREATE TABLE webhook_attempts (
        delivery_id       uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt           integer NOT NULL,
        attempted_at      timestamptz NOT NULL,
        status_code       integer NULL,
        latency_ms        integer NOT NULL,
        error             text NULL,
        response_excerpt  text NULL,
        PRIMARY KEY (delivery_id, attempt)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(
      `ALTER TABLE api_keys DROP COLUMN webhook_disabled_at, DROP COLUMN webhook_disabled_reason`,
    );
  }
}
