import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ferry_append_to_streams`: several appends, each to its own stream with its own expected revision, in one statement
 * and one commit (the event store's group commit, docs/decisions/0025-appends-committed-in-groups.md). Each append runs
 * `ferry_append_to_stream` in a subtransaction: one that fails (wrong expected revision, an event id already stored)
 * writes nothing and is answered with its SQLSTATE, detail and constraint; the others are stored. Appends are given
 * flattened: `p_counts[i]` events of the arrays belong to `p_streams[i]`, in order.
 */
export class AppendToStreams1763771900000 implements MigrationInterface {
  name = 'AppendToStreams1763771900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION ferry_append_to_streams(
        p_streams text[], p_expected text[], p_counts integer[],
        p_ids text[], p_types text[], p_versions integer[], p_data jsonb[], p_metadata jsonb[]
      ) RETURNS TABLE (
        append_index integer, next_revision bigint, last_position bigint, transaction_id xid8,
        error_code text, error_detail text, error_constraint text
      )
      LANGUAGE plpgsql AS $fn$
      DECLARE
        v_from integer := 1;
        v_to integer;
        v_row record;
      BEGIN
        FOR i IN 1 .. cardinality(p_streams) LOOP
          v_to := v_from + p_counts[i] - 1;
          append_index := i;
          BEGIN
            SELECT * INTO v_row FROM ferry_append_to_stream(
              p_streams[i], p_expected[i], p_ids[v_from:v_to], p_types[v_from:v_to], p_versions[v_from:v_to],
              p_data[v_from:v_to], p_metadata[v_from:v_to]);
            next_revision := v_row.next_revision;
            last_position := v_row.last_position;
            transaction_id := v_row.transaction_id;
            error_code := NULL;
            error_detail := NULL;
            error_constraint := NULL;
          EXCEPTION WHEN OTHERS THEN
            next_revision := NULL;
            last_position := NULL;
            transaction_id := NULL;
            GET STACKED DIAGNOSTICS
              error_code = RETURNED_SQLSTATE, error_detail = PG_EXCEPTION_DETAIL,
              error_constraint = CONSTRAINT_NAME;
          END;
          RETURN NEXT;
          v_from := v_to + 1;
        END LOOP;
      END
      $fn$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP FUNCTION ferry_append_to_streams(text[], text[], integer[], text[], text[], integer[], jsonb[], jsonb[])`,
    );
  }
}
