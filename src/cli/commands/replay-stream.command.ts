import type { EventStore } from '../../event-store/event-store.js';
import { toJson } from '../format.js';
import type { CliOutput } from '../output.js';
import { foldStreamState, type StateFold, type StreamState } from '../stream-state.js';

export interface ReplayStreamOptions<S> {
  /** How the state after each event is computed; the generic merge of event data by default. */
  readonly fold?: StateFold<S>;
  /** Events read per round trip. */
  readonly pageSize?: number;
}

/**
 * `events:replay <streamId>`: prints each recorded event of one stream and the state after it.
 * Returns the exit code: 0, or 1 when the stream has no events.
 */
export async function replayStream<S = StreamState>(
  deps: { readonly store: EventStore },
  streamId: string,
  output: CliOutput,
  options: ReplayStreamOptions<S> = {},
): Promise<number> {
  const fold = (options.fold ?? foldStreamState) as StateFold<S>;
  const pageSize = options.pageSize ?? 500;
  let state: S | null = null;
  let count = 0;
  let lastRevision: bigint | null = null;
  for (let fromRevision = 0n; ;) {
    const events = await deps.store.readStream(streamId, { fromRevision, maxCount: pageSize });
    for (const event of events) {
      state = fold(state, event);
      count += 1;
      lastRevision = event.revision;
      output.out(
        `#${event.revision.toString()} ${event.type}  id=${event.id}  at=${event.createdAt.toISOString()}`,
      );
      output.out(`  data:  ${toJson(event.data)}`);
      output.out(`  state: ${toJson(state)}`);
    }
    if (events.length < pageSize) break;
    fromRevision = events[events.length - 1].revision + 1n;
  }
  if (lastRevision === null) {
    output.err(`Stream ${streamId} not found: it has no events.`);
    return 1;
  }
  output.out(
    `${count} event${count === 1 ? '' : 's'}; ${streamId} is at revision ${lastRevision.toString()}`,
  );
  return 0;
}
