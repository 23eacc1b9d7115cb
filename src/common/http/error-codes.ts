/**
 * Every `errorCode` Ferry answers with, its HTTP status and when it happens. `docs/errors.md` is generated from
 * this table (`npm run openapi`), and a test fails when the two disagree.
 */
export const ERROR_CODES = {
  INVALID_INPUT: {
    status: 400,
    description:
      'A parameter or body field is missing, malformed or out of range; `errorData` lists each problem.',
  },
  MALFORMED_JSON: { status: 400, description: 'The request body is not valid JSON.' },
  INPUT_TOO_COMPLEX: {
    status: 400,
    description:
      'The JSON body nests deeper than 32 levels, or holds an array of more than 1,000 items or an object of more than 1,000 keys.',
  },
  MALFORMED_URL: {
    status: 400,
    description:
      'The URL cannot be decoded (a malformed percent escape, for example `/app-fees/%/balances`).',
  },
  URI_TOO_LONG: {
    status: 414,
    description: 'A path parameter is longer than the router accepts (100 characters).',
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The request body is not `application/json`.' },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    description:
      'The request body is larger than the configured limit (`http.bodyLimitBytes`, 1 MiB by default).',
  },
  ROUTE_NOT_FOUND: { status: 404, description: 'No route has this method and path.' },
  NOT_FOUND: { status: 404, description: 'The route exists but the resource it names does not.' },
  UNAUTHORIZED: { status: 401, description: 'The route needs a valid `x-api-key` header.' },
  FORBIDDEN: { status: 403, description: 'The credentials are valid but may not do this.' },
  CONFLICT: { status: 409, description: 'The request conflicts with the current state; reload and retry.' },
  RATE_LIMITED: {
    status: 429,
    description: 'Too many requests for this key or route; retry after the `Retry-After` header.',
  },
  ENDPOINT_RETIRED: {
    status: 410,
    description:
      'The endpoint was retired on its announced `Sunset` date (`GET /requests/v2` on 2026-11-24); the body names its `successor`.',
  },
  UNSUPPORTED_CHAIN: {
    status: 400,
    description:
      'A chain id is not in the chain list (`GET /chains`), or deposits to or from it are disabled.',
  },
  UNSUPPORTED_CURRENCY: {
    status: 400,
    description:
      "A currency is not listed on the chain named with it (`GET /chains` lists each chain's currencies).",
  },
  INVALID_ADDRESS: {
    status: 400,
    description:
      'An address is not valid on the chain it is used on (EVM hex, SVM base58, perps exchange A ids, perps exchange B account indexes); `errorData.field` names it.',
  },
  AMOUNT_TOO_LOW: {
    status: 400,
    description:
      'After fees nothing (or less than the minimum) would arrive; `errorData` carries the fees and the minimum.',
  },
  NO_ROUTE: {
    status: 400,
    description:
      'No route exists between the two currencies (for example a pair no solver holds, or a flow the chains do not support).',
  },
  PRICE_UNAVAILABLE: {
    status: 400,
    description:
      "No trustworthy USD price for a currency the quote needs: no feed is configured for it, the feed's chain did not answer, or the feed's answer was refused (not positive, an incomplete round, dated in the future, or moved more than its limit in one round). `errorData` names the currency (`chainId`, `address`, `symbol`) and the `reason`; nothing is recorded. Retry later (docs/prices.md).",
  },
  PRICE_STALE: {
    status: 400,
    description:
      "The USD price feed of a currency the quote needs has not been updated for longer than its limit (`errorData.updatedAt`, `ageSeconds`, `maxAgeSeconds`, and the currency's `chainId`, `address`, `symbol`); Ferry never quotes from an old price. Retry later (docs/prices.md).",
  },
  ROUTE_TOO_LARGE: {
    status: 400,
    description:
      'The generated transaction is too large for its chain (SVM: over 1172 bytes at quote time, measured on the serialized transaction); no calldata is returned. `errorData: {size, limit}`.',
  },
  SWAP_AGGREGATOR_UNAVAILABLE: {
    status: 400,
    description:
      'The route needs a swap on the SVM origin chain through a third-party aggregator (the origin currency is an SVM token the depository does not take), and no aggregator adapter is configured. Deposit one of the SVM currencies `GET /chains` lists instead.',
  },
  CHAIN_RPC_UNAVAILABLE: {
    status: 400,
    description:
      "A quote, an oracle attestation or a gasless permit deposit (`POST /execute/permits`: the relayer's gas estimate, the user's balance) needs a read from the chain that cannot be made: no RPC is configured for it in this environment, or its RPC failed or timed out (SVM origins need the latest blockhash; in production, the gas price of an EVM chain), or its RPC serves another chain (in every environment). `errorData: {chainId, reason: not-configured | rpc-failed | wrong-chain}` (`servedChainId` with `wrong-chain`); nothing is recorded, and other chains keep working.",
  },
  SPONSORSHIP_NOT_ALLOWED: {
    status: 400,
    description:
      'Fee sponsorship (`subsidizeFees`, `sponsoredFeeComponents`) needs an API key with sponsorship enabled and is not available with deposit addresses.',
  },
  UNSUPPORTED_OPTION: {
    status: 400,
    description:
      'An option cannot be used with this route (for example `usePermit` on a currency without EIP-3009, `useDepositAddress` on a non-native bridge, withdrawals from perps exchange A without `protocolVersion=v2`).',
  },
  DEPOSIT_ADDRESS_UNAVAILABLE: {
    status: 400,
    description:
      '`useDepositAddress` where Ferry does not offer it: deposit addresses are for native-currency bridges only (the same native currency on both chains, no swap, no destination calls), from an EVM chain with a deposit-address factory (`errorData.reason`: `not-native-bridge`, `origin-not-evm`, `no-factory`). Use the depository deposit step.',
  },
  INSUFFICIENT_LIQUIDITY: {
    status: 400,
    description:
      'The solver holds less of the output currency on the destination chain than the quote would pay (`errorData.available`); a smaller amount may be quoted.',
  },
  SETTLEMENT_UNAVAILABLE: {
    status: 400,
    description:
      'Ferry cannot settle this route: it has no way to read deposits on the origin chain or to pay fills on the destination chain (a VM without an adapter: the SVM chain, perps exchanges A and B; or a chain without an RPC in this environment). `errorData` names the chain and the side.',
  },
  DESTINATION_CALL_REVERTED: {
    status: 400,
    description:
      'A destination call (`txs`) reverts when simulated at the latest block as the call executor would run it; the body carries `failedCallData {from, to, data, value}`, `approxSimulatedBlock` and `errorData.index`.',
  },
  CALL_VALUE_EXCEEDS_OUTPUT: {
    status: 400,
    description:
      'The destination calls (`txs`) spend more native value than the output can fund: calls run with exactly the output, so their `value` must fit in a native output and is not allowed with an ERC-20 output (`errorData.callValue`, `errorData.output`).',
  },
  INVALID_SIGNATURE: {
    status: 400,
    description: 'A signature does not verify for the signer, nonce or message it must match.',
  },
  NOTHING_TO_CLAIM: {
    status: 400,
    description:
      'The app-fee balance available to claim is 0: nothing accrued yet, or an open claim (unsigned, or being paid) holds it.',
  },
  CLAIM_BELOW_FEE: {
    status: 400,
    description:
      'The app-fee balance does not cover the app-balance fee of claiming on that chain or in that currency (`errorData.fee`, USDC units); claim on the base chain in USDC, which is free.',
  },
  CLAIM_BELOW_GAS: {
    status: 400,
    description:
      "The claim's payout (`errorData.payoutAmount`, smallest unit of `errorData.currency` on `errorData.chainId`) is worth less than the gas Ferry's treasury would pay to send it (the payout's estimated gas at the chain's gas price, cut to its fee cap). Refused when the claim is opened (nothing is opened) and again when it is signed, if gas rose meanwhile (nothing is paid; the balance stays claimable). Claim once the balance has grown, or on a chain where gas costs less.",
  },
  CLAIM_EXPIRED: {
    status: 409,
    description:
      'The app-fee claim was not signed within its time (`appFees.claimTtlSeconds`); its balance is claimable again with a new claim.',
  },
  CLAIM_ALREADY_USED: {
    status: 409,
    description: 'The app-fee claim was already signed (paid, being paid, or failed); make a new claim.',
  },
  CLAIM_PAYOUT_FAILED: {
    status: 409,
    description:
      'The signed app-fee claim could not be paid (the payout could not be sent, reverted or was dropped; `errorData.reason`); the reservation went back to the balance, which can be claimed again.',
  },
  SPONSORSHIP_NOT_COVERED: {
    status: 409,
    description:
      "A gasless permit deposit (`POST /execute/permits`) of a quote whose fees an app-fee balance sponsors, when that balance no longer covers what the quote sponsored (other requests' sponsorships hold it, or it was claimed since the quote): the relayer sends nothing and the request stays as quoted (`errorData.sponsoredAmount`, base USDC units). Quote again: the new quote counts the balance left.",
  },
  CHAIN_NOT_CONFIGURED: {
    status: 503,
    description:
      'The chain has no RPC in this environment, so it cannot be read (`errorData.variable` names the setting).',
  },
  TRANSACTION_NOT_FOUND: {
    status: 400,
    description:
      'Oracle: the chain has no mined transaction with this id. `errorData: {chainId, transactionId}`; ask again once it is mined.',
  },
  TRANSACTION_NOT_FINAL: {
    status: 400,
    description:
      'Oracle: the transaction is mined but not final under the chain\'s finality rule (`finality` in the chains config). The message is always "Transaction is not final yet"; `errorData: {chainId, transactionId, blockNumber, finalBlockNumber}`. Ask again later.',
  },
  ATTESTATION_MISMATCH: {
    status: 400,
    description:
      'Oracle: the final transaction does not show the fact asked about (no deposit into the depository, a reverted transaction, a payment below the minimum, not from the solver, not tagged with the order id…). The message says what was found; `errorData.found` lists it.',
  },
  AMBIGUOUS_ATTESTATION: {
    status: 400,
    description:
      'Oracle: the transaction holds several matching events; name the one to attest with `depositId` and/or `logIndex`. `errorData.found` lists them.',
  },
  VM_NOT_CONFIGURED: {
    status: 400,
    description:
      "Oracle: the chain's VM family (`svm-vm`, `btc-vm`, `perpsa-vm`, `perpsb-vm`, `trx-vm`) has no attestation backend in this build. `errorData: {chainId, vmType}`.",
  },
  WITHDRAWAL_FLOW_UNAVAILABLE: {
    status: 400,
    description:
      'Oracle: the withdrawal-address flow (`/attestations/withdrawal-initiation/v1`, `/attestations/withdrawal-initiated/v1`) needs a hub ledger and a depository that executes oracle-signed withdrawals; Ferry deploys neither yet (docs/oracle.md).',
  },
  INTERNAL_ERROR: {
    status: 500,
    description: 'An unexpected error; the response carries `requestId` for the logs.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    description:
      'A dependency is unavailable (the database refused or lost the connection, or has no connection left) or a read model is still being built; retry later (`Retry-After`, in seconds). The body carries `requestId`.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
