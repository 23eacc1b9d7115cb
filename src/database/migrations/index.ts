import { EventStore1763770000000 } from './1763770000000-event-store.js';
import { Projections1763770100000 } from './1763770100000-projections.js';
import { ApiKeys1763770200000 } from './1763770200000-api-keys.js';
import { Webhooks1763770300000 } from './1763770300000-webhooks.js';
import { Chains1763770400000 } from './1763770400000-chains.js';
import { UnmatchedDeposits1763770500000 } from './1763770500000-unmatched-deposits.js';
import { TransactionJournal1763770600000 } from './1763770600000-transaction-journal.js';
import { DepositAddresses1763770700000 } from './1763770700000-deposit-addresses.js';
import { ApiKeySponsorAddress1763771200000 } from './1763771200000-api-key-sponsor-address.js';
import { ApiKeyRevenueShare1763771300000 } from './1763771300000-api-key-revenue-share.js';
import { OracleAttestations1763771400000 } from './1763771400000-oracle-attestations.js';
import { MetricsIndexes1763771500000 } from './1763771500000-metrics-indexes.js';
import { ChainCursorWatchedFrom1763771600000 } from './1763771600000-chain-cursor-watched-from.js';
import { AggregateSnapshots1763771700000 } from './1763771700000-aggregate-snapshots.js';
import { UnmatchedDepositsDust1763771800000 } from './1763771800000-unmatched-deposits-dust.js';
import { AppendToStreams1763771900000 } from './1763771900000-append-to-streams.js';
import { JournalFeeBumps1763772100000 } from './1763772100000-journal-fee-bumps.js';

/** Every migration, in order. Adding one never edits the data source. */
export const migrations = [
  EventStore1763770000000,
  Projections1763770100000,
  ApiKeys1763770200000,
  Webhooks1763770300000,
  Chains1763770400000,
  UnmatchedDeposits1763770500000,
  TransactionJournal1763770600000,
  DepositAddresses1763770700000,
  ApiKeySponsorAddress1763771200000,
  ApiKeyRevenueShare1763771300000,
  OracleAttestations1763771400000,
  MetricsIndexes1763771500000,
  ChainCursorWatchedFrom1763771600000,
  AggregateSnapshots1763771700000,
  UnmatchedDepositsDust1763771800000,
  AppendToStreams1763771900000,
  JournalFeeBumps1763772100000,
];
