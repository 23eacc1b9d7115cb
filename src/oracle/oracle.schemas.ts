type Schema = Record<string, unknown>;
const string = (description?: string): Schema => ({
  type: 'string',
  ...(description ? { description } : {}),
});
const object = (properties: Record<string, Schema>, required: readonly string[]): Schema => ({
  type: 'object',
  properties,
  required: [...required],
  additionalProperties: false,
});
const loose = (description: string): Schema => ({ type: 'object', description, additionalProperties: true });

/** The oracle's answers as they come back (docs/oracle.md), for the OpenAPI documents of Ferry and the oracle. */
export const ORACLE_SCHEMAS: Readonly<Record<string, Schema>> = {
  OracleLivesResponse: object({ status: { type: 'string', enum: ['ok'] } }, ['status']),
  OracleChainsResponse: object(
    {
      chains: {
        type: 'array',
        items: object(
          {
            id: { type: 'integer' },
            name: string(),
            vmType: {
              type: 'string',
              enum: ['evm-vm', 'svm-vm', 'btc-vm', 'perpsa-vm', 'perpsb-vm', 'trx-vm'],
            },
            depository: string(),
            solver: string(),
            callExecutor: { type: 'string', nullable: true },
            finality: object(
              { blocks: { type: 'integer' }, tag: { type: 'string', enum: ['finalized'], nullable: true } },
              ['blocks', 'tag'],
            ),
            attestable: {
              type: 'boolean',
              description: 'Attestations on it can be made here (a backend and an RPC)',
            },
          },
          ['id', 'name', 'vmType', 'depository', 'solver', 'callExecutor', 'finality', 'attestable'],
        ),
      },
    },
    ['chains'],
  ),
  OracleSignature: object(
    {
      signer: string('The address the signature recovers to'),
      signature: string('65 bytes r ‖ s ‖ v, low s, over the EIP-712 digest of message under domain'),
      shadow: { type: 'boolean', description: 'Made by an instance in shadow mode: never counted' },
    },
    ['signer', 'signature', 'shadow'],
  ),
  OracleAttestation: object(
    {
      kind: {
        type: 'string',
        enum: ['depository-deposit', 'depository-withdrawal', 'solver-fill', 'solver-refund'],
      },
      messageId: string('The EIP-712 struct hash of message (the same on every instance)'),
      domain: object(
        { name: string(), version: string(), chainId: { type: 'integer' }, verifyingContract: string() },
        ['name', 'version', 'chainId', 'verifyingContract'],
      ),
      message: object(
        {
          data: loose('What was asked: chainId, transactionId, and for fills and refunds the order terms'),
          result: loose('What the final transaction showed (docs/oracle.md lists the fields of each kind)'),
        },
        ['data', 'result'],
      ),
      signatures: { type: 'array', items: { $ref: '#/components/schemas/OracleSignature' } },
    },
    ['kind', 'messageId', 'domain', 'message', 'signatures'],
  ),
};
