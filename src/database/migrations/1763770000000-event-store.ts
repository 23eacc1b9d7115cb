import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event log: one `events` table ordered for catch-up by (transaction_id, global_position), one `event_streams`
 * row per stream holding its current revision (appends are O(1)), and the append function (one round trip).
 */
export class EventStore1763770000000 implements MigrationInterface {
  name = 'EventStore1763770000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE event_streams (
        stream_id  text PRIMARY KEY,
        revision   bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE events (
        global_position bigserial PRIMARY KEY,
        transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
        stream_id       text NOT NULL,
        stream_revision bigint NOT NULL,
        event_id        text NOT NULL,
        event_type      text NOT NULL,
        schema_version  integer NOT NULL DEFAULT 1,
        data            jsonb NOT NULL,
        metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at      timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT events_stream_revision_key UNIQUE (stream_id, stream_revision),
        CONSTRAINT events_event_id_key UNIQUE (event_id)
      )`);
    await queryRunner.query(`CREATE INDEX events_feed_idx ON events (transaction_id, global_position)`);
    await queryRunner.query(`
      CREATE FUNCTION ferry_append_to_stream(
        p_stream_id text, p_expected text,
        p_ids text[], p_types text[], p_versions integer[], p_data jsonb[], p_metadata jsonb[]
      ) RETURNS TABLE (next_revision bigint, last_position bigint, transaction_id xid8)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        n bigint := cardinality(p_ids);
        v_next bigint;
        v_current bigint;
      BEGIN
        IF p_expected = 'no_stream' THEN
          INSERT INTO event_streams (stream_id, revision) VALUES (p_stream_id, n - 1)
            ON CONFLICT (stream_id) DO NOTHING RETURNING revision INTO v_next;
        ELSIF p_expected = 'any' THEN
          INSERT INTO event_streams AS s (stream_id, revision) VALUES (p_stream_id, n - 1)
            ON CONFLICT (stream_id) DO UPDATE SET revision = s.revision + n, updated_at = now()
            RETURNING revision INTO v_next;
        ELSIF p_expected = 'stream_exists' THEN
          UPDATE event_streams SET revision = revision + n, updated_at = now()
            WHERE stream_id = p_stream_id RETURNING revision INTO v_next;
        ELSE
          UPDATE event_streams SET revision = revision + n, updated_at = now()
            WHERE stream_id = p_stream_id AND revision = p_expected::bigint RETURNING revision INTO v_next;
        END IF;
        IF v_next IS NULL THEN
          SELECT revision INTO v_current FROM event_streams WHERE stream_id = p_stream_id;
          RAISE EXCEPTION 'wrong expected revision' USING ERRCODE = 'FY001',
            DETAIL = coalesce(v_current::text, 'no_stream');
        END IF;
        RETURN QUERY
          WITH inserted AS (
            INSERT INTO events (stream_id, stream_revision, event_id, event_type, schema_version, data, metadata)
            SELECT p_stream_id, v_next - n + e.ord, e.id, e.type, e.version, e.data, e.metadata
              FROM unnest(p_ids, p_types, p_versions, p_data, p_metadata)
                   WITH ORDINALITY AS e(id, type, version, data, metadata, ord)
            RETURNING global_position
          )
          SELECT v_next, max(inserted.global_position), pg_current_xact_id() FROM inserted;
      END
      $fn$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP FUNCTION ferry_append_to_stream(text, text, text[], text[], integer[], jsonb[], jsonb[])`,
    );
    await queryRunner.query(`DROP TABLE events`);
    await queryRunner.query(`DROP TABLE event_streams`);
  }
}
