import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `chain_cursors.watched_from`: the chain's head when this database first watched it. A deposit in that block or an
 * older one, for an id no quote of this database issued, was made for someone else (another Ferry on the same
 * depository, a reused devnet) and is never returned: returning it would pay its depositor a second time. Null for
 * cursors from before the column (their first rounds are long past; nothing is kept from them).
 */
export class ChainCursorWatchedFrom1763771600000 implements MigrationInterface {
  name = 'ChainCursorWatchedFrom1763771600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE chain_cursors ADD COLUMN watched_from bigint');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE chain_cursors DROP COLUMN watched_from');
  }
}
