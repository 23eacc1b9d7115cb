import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The projection registry (which generation of each read model is live, which is being built) and one checkpoint
 * per generation. A generation's rows live in `<table>_g<generation>`; the view `<table>` points at the live one.
 */
export class Projections1763770100000 implements MigrationInterface {
  name = 'Projections1763770100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE projections (
        name                text PRIMARY KEY,
        live_generation     integer,
        live_version        integer,
        building_generation integer,
        building_version    integer,
        next_generation     integer NOT NULL DEFAULT 1,
        updated_at          timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE projection_checkpoints (
        name             text NOT NULL,
        generation       integer NOT NULL,
        commit_position  bigint NOT NULL DEFAULT 0,
        prepare_position bigint NOT NULL DEFAULT 0,
        events_processed bigint NOT NULL DEFAULT 0,
        last_event_at    timestamptz,
        started_at       timestamptz NOT NULL DEFAULT now(),
        updated_at       timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (name, generation)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE projection_checkpoints`);
    await queryRunner.query(`DROP TABLE projections`);
  }
}
