import {
  arrayOf,
  boolean,
  hex32,
  integer,
  object,
  ref,
  type Schemas,
  string,
  stringEnum,
  units,
} from '../../common/openapi/schema.js';

const typedDataTypes = {
  type: 'object' as const,
  additionalProperties: arrayOf(object({ name: string(), type: string() })),
};

/** The spec's Step and the item data of every flow (src/quotes/domain/steps/step.ts). */
export const STEP_SCHEMAS: Schemas = {
  Step: object({
    id: stringEnum(['approve', 'deposit', 'authorize']),
    action: string('Short label'),
    description: string(),
    kind: stringEnum(['transaction', 'signature']),
    requestId: hex32('The same on every step of one quote (= protocol.v2.orderId)'),
    depositAddress: string('The deposit address with useDepositAddress, else the empty string'),
    items: arrayOf(ref('StepItem')),
  }),
  StepItem: object(
    {
      status: stringEnum(['incomplete']),
      data: {
        description: 'Depends on the step kind and the origin chain',
        oneOf: [
          ref('EvmTransactionData'),
          ref('SignatureData'),
          ref('PerpsASendAssetData'),
          ref('PerpsBTransferData'),
          ref('SvmTransactionData'),
        ],
      },
      check: object(
        {
          endpoint: string('Relative to the base URL: /intents/status/v3?requestId=…'),
          method: stringEnum(['GET']),
        },
        {
          description:
            'The status check; approval items have none (an approval changes nothing of the request)',
        },
      ),
    },
    { optional: ['check'] },
  ),
  EvmTransactionData: object(
    {
      from: string(),
      to: string(),
      data: string('Calldata (hex)', { pattern: '^0x[0-9a-fA-F]*$' }),
      value: units('Native value, smallest unit'),
      chainId: integer(),
      gas: units(),
      maxFeePerGas: units(),
      maxPriorityFeePerGas: units(),
    },
    { optional: ['gas', 'maxFeePerGas', 'maxPriorityFeePerGas'] },
  ),
  SignatureData: object({
    sign: { oneOf: [ref('Eip712Sign'), ref('Eip191Sign')] },
    post: object(
      {
        endpoint: string(),
        method: stringEnum(['POST']),
        body: { type: 'object', additionalProperties: true },
      },
      { description: 'Submit `body` to `endpoint` with the signature as the query parameter `signature`' },
    ),
  }),
  Eip712Sign: object({
    signatureKind: stringEnum(['eip712']),
    domain: object({ name: string(), version: string(), chainId: integer(), verifyingContract: string() }),
    types: typedDataTypes,
    primaryType: string(),
    value: { type: 'object', additionalProperties: true },
  }),
  Eip191Sign: object({ signatureKind: stringEnum(['eip191']), message: string() }),
  PerpsASendAssetData: object({
    action: object({
      type: stringEnum(['sendAsset']),
      parameters: object({
        perpsChain: string(),
        destination: string(),
        sourceDex: string(),
        destinationDex: string(),
        token: string(),
        amount: string('Human units'),
        fromSubAccount: string(),
        nonce: integer(),
      }),
    }),
    nonce: integer(),
    eip712Types: typedDataTypes,
    eip712PrimaryType: string(),
  }),
  PerpsBTransferData: object({
    action: object({
      type: stringEnum(['transfer']),
      parameters: object({
        type: stringEnum(['transfer']),
        toAccountIndex: integer(),
        assetIndex: integer(),
        fromRouteType: integer(),
        toRouteType: integer(),
        amount: integer(),
        usdcFee: integer(),
        memo: string(),
      }),
    }),
  }),
  SvmTransactionData: object({
    serializedTransaction: string('The unsigned v0 transaction, base64'),
    instructions: arrayOf(
      object({
        keys: arrayOf(object({ pubkey: string(), isSigner: boolean(), isWritable: boolean() })),
        programId: string(),
        data: string('Hex'),
      }),
    ),
    addressLookupTableAddresses: arrayOf(string()),
  }),
};
