import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `aggregate_snapshots`: one aggregate's state folded up to a revision of its stream, so a long-lived stream (an
 * app-fee account takes an event per credited request) is loaded from its last snapshot and the events after it, not
 * from its first event. A cache of the log, never a source of truth: `schema` names the fold that wrote it (a snapshot
 * of another fold is ignored), and `event_id` the event at `revision` (a snapshot whose event the store does not hold
 * there, as after the event store was replaced, is ignored).
 */
export class AggregateSnapshots1763771700000 implements MigrationInterface {
  name = 'AggregateSnapshots1763771700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE aggregate_snapshots (
        stream_id text PRIMARY KEY,
        schema integer NOT NULL,
        revision bigint NOT NULL,
        event_id text NOT NULL,
        state jsonb NOT NULL,
        taken_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE aggregate_snapshots');
  }
}
