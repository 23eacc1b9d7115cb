import type { EventStore } from '../../event-store/event-store.js';
import { evolveRequestRecord } from '../../../projections/requests/request-record.js';
import type { RequestRecordState } from '../../../projections/requests/request-record-state.js';
import { requestStreamId } from '../../requests/domain/request.aggregate.js';
import { toJson } from '../format.js';
import type { CliOutput } from '../output.js';

/**
 * `requests:replay <requestId>`: every event of the request with the status it leads to, then the v3 record the
 * events fold into (computed here from the stream, independently of the read model). Exit 1 for an unknown request.
 */
export async function replayRequest(
  deps: { readonly store: EventStore },
  requestId: string,
  output: CliOutput,
): Promise<number> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(requestId)) {
    output.err(`"${requestId}" is not a request id (0x followed by 64 hex digits).`);
    return 1;
  }
  const events = await deps.store.readStream(requestStreamId(requestId));
  if (events.length === 0) {
    output.err(`Request ${requestId} not found: its stream ${requestStreamId(requestId)} has no events.`);
    return 1;
  }
  let record: RequestRecordState | null = null;
  for (const event of events) {
    record = evolveRequestRecord(record, event);
    output.out(
      `#${event.revision.toString()} ${event.type}  id=${event.id}  at=${event.createdAt.toISOString()}`,
    );
    output.out(`  data:   ${toJson(event.data)}`);
    output.out(
      `  status: ${record?.v3.status ?? '(none)'}${record?.expired ? ` (expired: ${record.expiredReason})` : ''}`,
    );
  }
  output.out('');
  output.out(`v3 record (${events.length} events; listed in history: ${record?.listed ? 'yes' : 'no'}):`);
  for (const line of JSON.stringify(record?.v3 ?? null, null, 2).split('\n')) output.out(line);
  return 0;
}
