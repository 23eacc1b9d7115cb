import type { SqlExecutor } from '../../database/database.js';
import {
  type AppendResult,
  type ExpectedRevision,
  expectedRevisionToString,
  type NewEvent,
} from '../event-store.js';
import { answerConflict, appendToStream, isAppendConflict, type PgError } from './append-to-stream.js';

/** The most appends one statement carries (each is a subtransaction; PostgreSQL caches 64 per transaction). */
export const MAX_GROUP = 32;

interface Append {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  readonly expectedRevision: ExpectedRevision;
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: unknown) => void;
}

interface GroupRow {
  append_index: number;
  next_revision: bigint | null;
  last_position: bigint | null;
  transaction_id: bigint | null;
  error_code: string | null;
  error_detail: string | null;
  error_constraint: string | null;
}

/**
 * Group commit for appends (docs/decisions/0025-appends-committed-in-groups.md). An append asked while none is being
 * written is written at once, alone, as before. Appends asked while one is being written wait for it and then go
 * together in one statement and one commit (`ferry_append_to_streams`): under load the database sees one round trip
 * and one WAL flush per group instead of per append, and an idle instance adds no latency. Each append keeps its own
 * expected revision and its own answer: a conflict in one never fails another.
 */
export class GroupCommit {
  private readonly waiting: Append[] = [];
  private writing = false;

  constructor(private readonly sql: SqlExecutor) {}

  append(
    streamId: string,
    events: readonly NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error(`appendToStream(${streamId}) needs at least one event`);
    return new Promise<AppendResult>((resolve, reject) => {
      this.waiting.push({ streamId, events, expectedRevision, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, MAX_GROUP);
        // Every append is answered: a fault here must not leave callers waiting for ever.
        await (group.length === 1 ? this.alone(group[0]) : this.together(group)).catch((error: unknown) => {
          for (const append of group) append.reject(error);
        });
      }
    } finally {
      this.writing = false;
    }
  }

  private async alone(append: Append): Promise<void> {
    await appendToStream(this.sql, append.streamId, append.events, append.expectedRevision).then(
      append.resolve,
      append.reject,
    );
  }

  private async together(group: readonly Append[]): Promise<void> {
    // Stream rows are locked in one order by every group (a stable sort keeps two appends to one stream in the order
    // they were asked), so two instances' groups never wait on each other in a cycle.
    const ordered = [...group].sort((a, b) =>
      a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0,
    );
    let rows: GroupRow[];
    try {
      ({ rows } = await this.sql.query<GroupRow>(
        `SELECT * FROM ferry_append_to_streams($1, $2, $3, $4, $5, $6, $7::jsonb[], $8::jsonb[])`,
        [
          ordered.map((append) => append.streamId),
          ordered.map((append) => expectedRevisionToString(append.expectedRevision)),
          ordered.map((append) => append.events.length),
          ordered.flatMap((append) => append.events.map((event) => event.id)),
          ordered.flatMap((append) => append.events.map((event) => event.type)),
          ordered.flatMap((append) => append.events.map((event) => event.schemaVersion ?? 1)),
          ordered.flatMap((append) => append.events.map((event) => JSON.stringify(event.data))),
          ordered.flatMap((append) => append.events.map((event) => JSON.stringify(event.metadata ?? {}))),
        ],
        { name: 'ferry_append_to_streams' },
      ));
    } catch {
      // The whole statement failed, so nothing of it was written: each append is tried again on its own, and answers
      // with what really stops it.
      await Promise.all(ordered.map((append) => this.alone(append)));
      return;
    }
    const byAppend = new Map(rows.map((row) => [row.append_index, row]));
    await Promise.all(
      ordered.map(async (append, index) => {
        const row = byAppend.get(index + 1);
        if (row && row.error_code === null) {
          append.resolve({
            nextExpectedRevision: row.next_revision!,
            position: { commit: row.transaction_id!, prepare: row.last_position! },
          });
          return;
        }
        const error: PgError = {
          code: row?.error_code ?? undefined,
          detail: row?.error_detail ?? undefined,
          constraint: row?.error_constraint ?? undefined,
        };
        if (isAppendConflict(error)) {
          await answerConflict(this.sql, append.streamId, append.events, append.expectedRevision, error).then(
            append.resolve,
            append.reject,
          );
        } else {
          await this.alone(append);
        }
      }),
    );
  }
}
