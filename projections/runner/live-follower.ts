import type { Database } from '../../src/database/database.js';
import {
  type EventStore,
  type Position,
  type ReadAllResult,
  START,
} from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';
import { type ApplyToGeneration, applyLiveBatch, type LiveGeneration } from './live-batch.js';

export interface LiveFollowerOptions {
  readonly batchSize: number;
  /**
   * The registry rows and checkpoints are read again at least this often: another process may have swapped a
   * generation in or moved a checkpoint (either is also noticed when a batch finds its checkpoint row gone or moved).
   */
  readonly refreshMs: number;
  /** A projection whose batch failed is tried again after this long (the runner's poll interval). */
  readonly retryMs: number;
  readonly apply: ApplyToGeneration;
  readonly onError: (projection: Projection, error: unknown) => void;
  readonly now?: () => number;
}

/** A live generation of the code's version, where this process last saw its checkpoint. */
interface Member extends LiveGeneration {
  position: Position;
  /** After a failed batch: not tried again before this time. */
  retryAt: number;
}

interface Row {
  name: string;
  live_generation: number;
  live_version: number;
  commit_position: bigint;
  prepare_position: bigint;
}

/**
 * Follows the live generations of every projection with one reader of the log: the projections whose checkpoints
 * stand at the same position (all of them, once caught up) share one `readAll` per round, and its batch is applied to
 * all of them in one transaction (`applyLiveBatch`). Registry rows and checkpoints are kept in memory between rounds
 * (this process moves the checkpoints itself) and read again, in one statement, when a batch finds a checkpoint gone
 * or moved (another instance, or a swap), when `invalidate()` is called, and every `refreshMs`. A round with nothing
 * readable costs one statement, whatever the number of projections.
 */
export class LiveFollower {
  private members: Member[] = [];
  private loadedAt: number | null = null;
  private readonly now: () => number;

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    private readonly options: LiveFollowerOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Reads the registry and the checkpoints again before the next round (e.g. after this process swapped one in). */
  invalidate(): void {
    this.loadedAt = null;
  }

  /** One round: a batch for each group of projections at the same checkpoint. Returns the events applied. */
  async round(): Promise<number> {
    const now = this.now();
    if (this.loadedAt === null || now - this.loadedAt >= this.options.refreshMs) await this.load(now);
    let processed = 0;
    for (const group of this.groups(now)) processed += await this.followGroup(group, now);
    return processed;
  }

  private async load(now: number): Promise<void> {
    const { rows } = await this.db.query<Row>(
      `SELECT p.name, p.live_generation, p.live_version, c.commit_position, c.prepare_position
         FROM projections AS p
         JOIN projection_checkpoints AS c ON c.name = p.name AND c.generation = p.live_generation
        WHERE p.name = ANY($1::text[])`,
      [this.projections.map((projection) => projection.name)],
    );
    const before = this.members;
    this.members = [];
    for (const projection of this.projections) {
      const row = rows.find((candidate) => candidate.name === projection.name);
      if (!row || row.live_version !== projection.version) continue;
      const known = before.find(
        (member) => member.projection === projection && member.generation === row.live_generation,
      );
      this.members.push({
        projection,
        generation: row.live_generation,
        position:
          row.commit_position === 0n && row.prepare_position === 0n
            ? START
            : { commit: row.commit_position, prepare: row.prepare_position },
        retryAt: known?.retryAt ?? 0,
      });
    }
    this.loadedAt = now;
  }

  /** Members due now, grouped by checkpoint position. */
  private groups(now: number): Member[][] {
    const groups = new Map<string, Member[]>();
    for (const member of this.members) {
      if (member.retryAt > now) continue;
      const key = `${member.position.commit}:${member.position.prepare}`;
      groups.set(key, [...(groups.get(key) ?? []), member]);
    }
    return [...groups.values()];
  }

  private async followGroup(group: readonly Member[], now: number): Promise<number> {
    const from = group[0].position;
    try {
      const batch = await this.store.readAll({ from, maxCount: this.options.batchSize });
      if (batch.events.length === 0) return 0;
      try {
        return this.settle(
          group,
          batch,
          await applyLiveBatch(this.db, group, from, batch, this.options.apply),
        );
      } catch (error) {
        if (group.length === 1) throw error;
        // One projection's fold failed: apply the batch to each alone, so the others are not held back by it.
        let processed = 0;
        for (const member of group) {
          try {
            const applied = await applyLiveBatch(this.db, [member], from, batch, this.options.apply);
            processed = Math.max(processed, this.settle([member], batch, applied));
          } catch (alone) {
            this.failed(member, alone, now);
          }
        }
        return processed;
      }
    } catch (error) {
      for (const member of group) this.failed(member, error, now);
      return 0;
    }
  }

  /** Moves the members the batch was applied to; a member left alone (contended) has its checkpoint read again. */
  private settle(group: readonly Member[], batch: ReadAllResult, applied: Set<LiveGeneration>): number {
    for (const member of group) {
      if (applied.has(member)) member.position = batch.position;
      else this.invalidate();
    }
    return applied.size > 0 ? batch.events.length : 0;
  }

  private failed(member: Member, error: unknown, now: number): void {
    member.retryAt = now + this.options.retryMs;
    this.options.onError(member.projection, error);
  }
}
