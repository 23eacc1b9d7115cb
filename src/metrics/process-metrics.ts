import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process-wide metrics (one set per Node process, whatever number of apps it builds): HTTP, RPC, chain heads,
 * quote outcomes and Node's own. Per-app state read at scrape time (lags, backlogs) is in state-metrics.ts.
 * Names and labels are listed in docs/operations.md ("Metrics").
 */
export const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry, prefix: 'ferry_' });

export const httpDuration = new Histogram({
  name: 'ferry_http_request_duration_seconds',
  help: 'HTTP requests answered, by method, route pattern and status, with their latency',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [processRegistry],
});

export const quoteOutcomes = new Counter({
  name: 'ferry_quotes_total',
  help: 'POST /quote/v2 answers by outcome: ok, or the errorCode answered',
  labelNames: ['outcome'] as const,
  registers: [processRegistry],
});

export const rpcRequests = new Counter({
  name: 'ferry_rpc_requests_total',
  help: 'JSON-RPC HTTP calls to each chain',
  labelNames: ['chain'] as const,
  registers: [processRegistry],
});

export const rpcErrors = new Counter({
  name: 'ferry_rpc_errors_total',
  help: 'JSON-RPC HTTP calls to each chain that failed (network error, time-out, non-2xx answer)',
  labelNames: ['chain'] as const,
  registers: [processRegistry],
});

export const rpcChainMismatch = new Gauge({
  name: 'ferry_rpc_chain_mismatch',
  help: '1 while an RPC configured for the chain answers eth_chainId with another chain (nothing is read through it), else 0',
  labelNames: ['chain'] as const,
  registers: [processRegistry],
});

export const feeEstimatesCapped = new Counter({
  name: 'ferry_journal_fee_estimates_capped_total',
  help: "Fee estimates above the chain's cap (gas.maxFeePerGasWei) that a transaction was signed below, by chain: a fee spike, or an RPC answering nonsense",
  labelNames: ['chain'] as const,
  registers: [processRegistry],
});

export const chainHead = new Gauge({
  name: 'ferry_chain_head_block',
  help: "The chain's head block, as the watcher last read it",
  labelNames: ['chain'] as const,
  registers: [processRegistry],
});

/**
 * A `fetch` for viem's http transport that counts each call and each failure under the chain's id: the RPC URL (which
 * may hold a provider key) never becomes a label.
 */
export function countingFetch(chainId: number | string): typeof fetch {
  const chain = String(chainId);
  // Both series exist from the first client on, so "no failures" reads 0 rather than a missing series.
  rpcRequests.inc({ chain }, 0);
  rpcErrors.inc({ chain }, 0);
  return async (input, init) => {
    rpcRequests.inc({ chain });
    try {
      const response = await fetch(input, init);
      if (!response.ok) rpcErrors.inc({ chain });
      return response;
    } catch (error) {
      rpcErrors.inc({ chain });
      throw error;
    }
  };
}
