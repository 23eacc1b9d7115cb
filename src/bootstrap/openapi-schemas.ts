import { ERROR_CODES } from '../common/http/error-codes.js';
import { ORDER_SCHEMAS } from '../quotes/openapi/order.schemas.js';
import { STEP_SCHEMAS } from '../quotes/openapi/step.schemas.js';
import { ORACLE_SCHEMAS } from '../oracle/oracle.schemas.js';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const string = (description?: string): Schema => ({
  type: 'string',
  ...(description ? { description } : {}),
});
const object = (
  properties: Record<string, Schema>,
  required: readonly string[] = [],
  extra = false,
): Schema => ({
  type: 'object',
  properties,
  required: [...required],
  additionalProperties: extra,
});

/**
 * Response schemas the controllers' decorators do not carry, written once here and added to the document by
 * `buildOpenApiDocument`: the shared error body (its `errorCode` an enum generated from the error-code registry) and
 * the answers of the quote, price, authorize, index, execute and health routes, as they really come back.
 */
export function componentSchemas(): Record<string, Schema> {
  const feeComponent = object({ usd: string(), amount: string(), amountFormatted: string() }, ['usd']);
  const sponsorshipComponent = object(
    { selected: { type: 'boolean' }, total: string(), sponsored: string(), userPays: string() },
    ['selected', 'total', 'sponsored', 'userPays'],
  );
  return {
    ErrorResponse: object(
      {
        message: string(),
        errorCode: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'docs/errors.md' },
        statusCode: { type: 'integer', description: 'The HTTP status, repeated' },
        errorData: { description: 'Details that depend on the errorCode' },
        requestId: string('For 5xx: the id of the request in the logs'),
        approxSimulatedBlock: { type: 'number' },
        failedCallData: ref('CallData'),
      },
      ['message', 'errorCode', 'statusCode'],
    ),
    CallData: object({ from: string(), to: string(), data: string(), value: string() }, [
      'from',
      'to',
      'data',
      'value',
    ]),
    Currency: object(
      {
        chainId: { type: 'integer' },
        address: string(),
        symbol: string(),
        name: string(),
        decimals: { type: 'integer' },
        metadata: object(
          { logoURI: string(), verified: { type: 'boolean' }, isNative: { type: 'boolean' } },
          [],
          true,
        ),
      },
      ['chainId', 'address', 'symbol', 'name', 'decimals'],
    ),
    Amount: object(
      {
        currency: ref('Currency'),
        amount: string('Smallest unit'),
        amountFormatted: string(),
        amountUsd: string(),
        minimumAmount: string('Smallest unit; the amount itself unless slippage applies'),
      },
      ['currency', 'amount', 'amountFormatted', 'amountUsd', 'minimumAmount'],
    ),
    // Step, StepItem and the item data of every flow: src/quotes/openapi/step.schemas.ts.
    ...(STEP_SCHEMAS as Record<string, Schema>),
    ...(ORDER_SCHEMAS as Record<string, Schema>),
    SlippageSide: object({ usd: string(), value: string('Smallest unit'), percent: string() }, [
      'usd',
      'value',
      'percent',
    ]),
    QuoteFees: object(
      {
        gas: ref('Amount'),
        relayer: ref('Amount'),
        relayerGas: ref('Amount'),
        relayerService: ref('Amount'),
        app: ref('Amount'),
        subsidized: ref('Amount'),
      },
      ['gas', 'relayer', 'relayerGas', 'relayerService', 'app', 'subsidized'],
    ),
    SponsorshipPhase: object(
      {
        selectedComponents: { type: 'array', items: string() },
        capHit: { type: 'boolean' },
        components: { type: 'object', additionalProperties: sponsorshipComponent },
        sponsoredTotal: ref('Amount'),
        userPaysTotal: ref('Amount'),
        maxSubsidizationAmount: string(),
      },
      [
        'selectedComponents',
        'capHit',
        'components',
        'sponsoredTotal',
        'userPaysTotal',
        'maxSubsidizationAmount',
      ],
    ),
    QuoteDetails: object(
      {
        operation: string(),
        sender: string(),
        recipient: string(),
        currencyIn: ref('Amount'),
        currencyOut: ref('Amount'),
        totalImpact: object({ usd: string(), percent: string() }, ['usd', 'percent']),
        swapImpact: object({ usd: string(), percent: string() }, ['usd', 'percent']),
        expandedPriceImpact: { type: 'object', additionalProperties: feeComponent },
        rate: string(),
        slippageTolerance: object({ origin: ref('SlippageSide'), destination: ref('SlippageSide') }, [
          'origin',
          'destination',
        ]),
        timeEstimate: { type: 'number' },
        userBalance: string(),
        callValue: string('The native value the destination calls spend out of the output'),
      },
      ['operation', 'sender', 'recipient', 'currencyIn', 'currencyOut', 'rate', 'timeEstimate'],
    ),
    QuoteResponse: object(
      {
        steps: { type: 'array', items: ref('Step') },
        fees: ref('QuoteFees'),
        feeSponsorship: object({ quoted: ref('SponsorshipPhase'), actual: { nullable: true } }, [
          'quoted',
          'actual',
        ]),
        details: ref('QuoteDetails'),
        protocol: object(
          {
            v2: object(
              {
                orderId: string(),
                hubType: string(),
                orderData: ref('OrderData'),
                paymentDetails: object(
                  { chainId: string(), depository: string(), currency: string(), amount: string() },
                  ['chainId', 'depository', 'currency', 'amount'],
                ),
              },
              ['orderId', 'paymentDetails'],
            ),
          },
          ['v2'],
        ),
      },
      ['steps', 'fees', 'feeSponsorship', 'details', 'protocol'],
    ),
    PriceResponse: object({ fees: ref('QuoteFees'), details: ref('QuoteDetails') }, ['fees', 'details']),
    AuthorizeResponse: object({ message: string(), requestId: string() }, ['message', 'requestId']),
    IndexTransactionResponse: object(
      {
        message: string(),
        deposits: { type: 'integer', description: 'Deposits the transaction carried' },
        final: { type: 'boolean', description: 'Whether its block is final (then they are confirmed too)' },
      },
      ['message', 'deposits', 'final'],
    ),
    ExecutePermitResponse: object(
      {
        message: string(),
        requestId: string(),
        txHash: string('The relayer (permit) or treasury (app-fee claim) transaction, journaled'),
        status: { type: 'string', enum: ['paid', 'submitted'], description: 'App-fee claims only' },
      },
      ['message', 'requestId', 'txHash'],
    ),
    AppFeeBalancesResponse: object(
      {
        balances: { type: 'array', items: ref('Amount'), description: 'The available balance in base USDC' },
        totals: object({ accrued: string(), pending: string(), withdrawn: string() }, [
          'accrued',
          'pending',
          'withdrawn',
        ]),
      },
      ['balances', 'totals'],
    ),
    AppFeeClaimResponse: object({ steps: { type: 'array', items: ref('Step') } }, ['steps']),
    AppFeeClaimsResponse: object(
      {
        claims: {
          type: 'array',
          items: object(
            {
              claimId: string(),
              address: string(),
              status: {
                type: 'string',
                enum: ['open', 'reserved', 'authorized', 'submitted', 'paid', 'failed', 'expired'],
              },
              amount: string('USDC units reserved from the balance'),
              fee: string('USDC units kept as the app-balance fee'),
              payoutAmount: string('Smallest unit of the payout currency'),
              chainId: { type: 'integer' },
              currency: string(),
              recipient: string(),
              txHash: { type: 'string', nullable: true },
              failReason: { type: 'string', nullable: true },
              reservedAt: string(),
              expiresAt: string(),
              updatedAt: string(),
            },
            ['claimId', 'status', 'amount', 'payoutAmount', 'chainId', 'currency', 'recipient'],
          ),
        },
      },
      ['claims'],
    ),
    ...ORACLE_SCHEMAS,
    HealthCheck: object(
      { status: { type: 'string', enum: ['up', 'down'] }, latencyMs: { type: 'number' }, error: string() },
      ['status'],
      true,
    ),
    HealthResponse: object(
      {
        status: { type: 'string', enum: ['ok', 'error'] },
        checks: object(
          { database: ref('HealthCheck'), eventStore: ref('HealthCheck'), projections: ref('HealthCheck') },
          ['database', 'eventStore', 'projections'],
        ),
      },
      ['status', 'checks'],
    ),
  };
}

/** Readable operation ids, by `<Controller>_<method>`; every operation must have one (a test checks). */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  HealthController_get: 'getHealth',
  HealthController_live: 'getHealthLive',
  RequestsV3Controller_list: 'getRequestsV3',
  RequestStatusController_getV3: 'getIntentStatusV3',
  RequestStatusController_get: 'getIntentStatus',
  RequestsV2Controller_list: 'getRequestsV2',
  WebhooksAdminController_setWebhook: 'setWebhook',
  WebhooksAdminController_removeWebhook: 'removeWebhook',
  WebhooksAdminController_listDeliveries: 'listWebhookDeliveries',
  WebhooksAdminController_getDelivery: 'getWebhookDelivery',
  WebhooksAdminController_redeliver: 'redeliverWebhook',
  WebhooksAdminController_redeliverFailed: 'redeliverFailedWebhooks',
  ChainsController_list: 'getChains',
  QuotesController_quote: 'getQuote',
  QuotesController_price: 'getPrice',
  QuotesController_authorize: 'authorize',
  TransactionsController_index: 'indexTransaction',
  ExecuteController_permits: 'executePermits',
  AppFeesController_balances: 'getAppFeeBalances',
  AppFeesController_claims: 'getAppFeeClaims',
  AppFeesController_claim: 'claimAppFees',
  RevenueShareAdminController_list: 'listRevenueShares',
  RevenueShareAdminController_get: 'getRevenueShare',
  RevenueShareAdminController_set: 'setRevenueShare',
  OracleController_lives: 'getOracleLives',
  OracleController_chainsV1: 'getOracleChains',
  OracleController_deposit: 'attestDepositoryDeposit',
  OracleController_withdrawal: 'attestDepositoryWithdrawal',
  OracleController_fill: 'attestSolverFill',
  OracleController_refund: 'attestSolverRefund',
  OracleController_withdrawalInitiation: 'attestWithdrawalInitiation',
  OracleController_withdrawalInitiated: 'attestWithdrawalInitiated',
};

/** The success schema of routes whose decorators name none, by `METHOD path`. */
export const SUCCESS_SCHEMAS: Readonly<Record<string, string>> = {
  'POST /quote/v2': 'QuoteResponse',
  'POST /price': 'PriceResponse',
  'POST /authorize': 'AuthorizeResponse',
  'POST /transactions/index': 'IndexTransactionResponse',
  'POST /execute/permits': 'ExecutePermitResponse',
  'GET /health': 'HealthResponse',
  'GET /health/live': 'OracleLivesResponse',
  'GET /app-fees/{address}/balances': 'AppFeeBalancesResponse',
  'GET /app-fees/{address}/claims': 'AppFeeClaimsResponse',
  'POST /app-fees/{address}/claim': 'AppFeeClaimResponse',
  'GET /lives/v1': 'OracleLivesResponse',
  'GET /chains/v1': 'OracleChainsResponse',
  'POST /attestations/depository-deposits/v1': 'OracleAttestation',
  'POST /attestations/depository-withdrawals/v1': 'OracleAttestation',
  'POST /attestations/solver-fills/v1': 'OracleAttestation',
  'POST /attestations/solver-refunds/v1': 'OracleAttestation',
};
