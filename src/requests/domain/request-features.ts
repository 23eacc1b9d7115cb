/**
 * The `features` of a request, as the spec names them (`GET /requests/v3?features=…`, v3 records). Ferry records
 * those it can have: `gasless_execution` (a permit deposit the relayer sends: the user pays no origin gas),
 * `app_fees`, `deposit_address`. It has no fast fills or gas top-ups, so `fast_fill` and `gas_top_up` never appear.
 */
export const REQUEST_FEATURES = ['gasless_execution', 'app_fees', 'deposit_address'] as const;
export type RequestFeature = (typeof REQUEST_FEATURES)[number];

/**
 * Names recorded before Ferry used the spec's: `permit` meant `gasless_execution`; `fee_sponsorship` and `calls` are
 * not features in the spec (sponsorship shows in `feeSponsorship`, calls in `requestType: Call`) and are dropped.
 */
const LEGACY: Readonly<Record<string, RequestFeature | null>> = {
  permit: 'gasless_execution',
  fee_sponsorship: null,
  calls: null,
};

/** The spec's feature names of a recorded request, whatever version of Ferry recorded it; order kept, no repeats. */
export function requestFeatures(recorded: readonly string[]): RequestFeature[] {
  const names = recorded.map((name) => (name in LEGACY ? LEGACY[name] : (name as RequestFeature)));
  return [...new Set(names.filter((name): name is RequestFeature => name !== null))];
}
