import fc from 'fast-check';
import {
  bytesToHex,
  concat,
  hashDomain,
  hashStruct,
  hashTypedData,
  type Hex,
  keccak256,
  maxUint256,
} from 'viem';
import {
  buildOrder,
  type BuildOrderInput,
  hashOrder,
  type OrderData,
  orderTypedData,
  orderTypes,
} from '../../../../src/quotes/domain/order/order-data.js';
import { encodeType, StructHasher } from '../../../../src/quotes/domain/order/order-hash.js';

/**
 * The precomputed order encoder (`StructHasher`) against viem's `hashTypedData`, on generated orders: byte-identical
 * ids for every order `buildOrder` makes, and for any other value either the same id or the same refusal.
 */

const hex = (minLength: number, maxLength: number) =>
  fc.uint8Array({ minLength, maxLength }).map((bytes) => bytesToHex(bytes));
/** Hex in any letter case (buildOrder lowercases it; the id must not depend on the case). */
const anyCaseHex = (length: number) =>
  fc
    .tuple(hex(length, length), fc.array(fc.boolean(), { minLength: 2 * length, maxLength: 2 * length }))
    .map(
      ([value, upper]) =>
        (`0x` + [...value.slice(2)].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')) as Hex,
    );
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('base', 'ethereum', 'svm', 'perps-a', ''),
);
/** EVM addresses, perps ids, base58 keys and any other string a chain may use. */
const address = fc.oneof(
  anyCaseHex(20),
  anyCaseHex(32),
  fc.constantFrom('So11111111111111111111111111111111111111112', '0x01'),
  text,
);
const amount = fc.bigInt({ min: 0n, max: maxUint256 });
const smallAmount = fc.bigInt({ min: 0n, max: 10n ** 30n });
const deadline = fc.oneof(fc.nat(), fc.maxSafeNat());
const data = hex(0, 300);

const buildInput: fc.Arbitrary<BuildOrderInput> = fc.record(
  {
    hubChainId: fc.oneof(fc.constantFrom(1, 8453, 31337), fc.integer({ min: 1, max: 2 ** 40 })),
    version: text,
    solverChainId: text,
    solver: address,
    salt: hex(32, 32),
    inputs: fc.array(
      fc.record({
        payment: fc.record(
          { chainId: text, currency: address, amount: fc.oneof(amount, smallAmount), weight: smallAmount },
          { requiredKeys: ['chainId', 'currency', 'amount'] },
        ),
        refunds: fc.array(
          fc.record(
            {
              chainId: text,
              recipient: address,
              currency: address,
              minimumAmount: fc.oneof(amount, smallAmount),
              deadline,
              extraData: data,
            },
            { requiredKeys: ['chainId', 'recipient', 'currency', 'minimumAmount', 'deadline'] },
          ),
          { maxLength: 3 },
        ),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    output: fc.record(
      {
        chainId: text,
        payments: fc.array(
          fc.record({
            recipient: address,
            currency: address,
            minimumAmount: amount,
            expectedAmount: smallAmount,
          }),
          { maxLength: 3 },
        ),
        calls: fc.array(fc.record({ to: anyCaseHex(20), data, value: smallAmount }), { maxLength: 3 }),
        deadline,
        extraData: data,
      },
      { requiredKeys: ['chainId', 'payments', 'deadline'] },
    ),
    fees: fc.array(fc.record({ chainId: text, recipient: address, currency: address, amount }), {
      maxLength: 3,
    }),
    depository: address,
  },
  { requiredKeys: ['hubChainId', 'solverChainId', 'solver', 'salt', 'inputs', 'output', 'depository'] },
);

const viemHash = (orderData: OrderData, hub: number): Hex => hashTypedData(orderTypedData(orderData, hub));
/** viem without its typed-data validation (what hashOrder did before the encoder, and does for what it refuses). */
const viemStructHash = (orderData: OrderData, hub: number): Hex => {
  const typed = orderTypedData(orderData, hub);
  const domain = hashDomain({
    domain: { ...typed.domain, chainId: BigInt(hub) },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
      ],
    },
  });
  return keccak256(
    concat(['0x1901', domain, hashStruct({ data: typed.message, primaryType: 'Order', types: orderTypes })]),
  );
};
const hasher = new StructHasher(orderTypes);

describe('the order hash (precomputed EIP-712 encoder)', () => {
  it('encodes each type as viem does (EIP-712 encodeType: primary type, then the referenced types sorted)', () => {
    expect(encodeType('Order', orderTypes)).toBe(
      'Order(string version,string solverChainId,string solver,bytes32 salt,Input[] inputs,Output output,Fee[] fees)' +
        'Call(address to,bytes data,uint256 value)' +
        'Fee(string chainId,string recipient,string currency,uint256 amount)' +
        'Input(Payment payment,Refund[] refunds)' +
        'Output(string chainId,OutputPayment[] payments,Call[] calls,uint256 deadline,bytes extraData)' +
        'OutputPayment(string recipient,string currency,uint256 minimumAmount,uint256 expectedAmount)' +
        'Payment(string chainId,string currency,uint256 amount,uint256 weight)' +
        'Refund(string chainId,string recipient,string currency,uint256 minimumAmount,uint256 deadline,bytes extraData)',
    );
  });

  it('gives every order buildOrder makes the id viem hashTypedData gives it, from the encoder itself', () => {
    fc.assert(
      fc.property(buildInput, (input) => {
        const { orderData, orderId } = buildOrder(input);
        // The encoder took the order (no fallback to viem), and its id is viem's, byte for byte.
        expect(hasher.hash('Order', orderData)).not.toBeNull();
        expect(orderId).toBe(viemHash(orderData, input.hubChainId));
        expect(hashOrder(JSON.parse(JSON.stringify(orderData)) as OrderData, input.hubChainId)).toBe(orderId);
      }),
      { numRuns: 500 },
    );
  });

  it('never disagrees with viem on other values (orders read back from anywhere): the same id, or both refuse', () => {
    const odd = fc.oneof(
      fc.constantFrom<unknown>('0xABC', '0x0', '12a', ' 1', '-1', 1.5, -1, null, undefined, {}, []),
      fc.constantFrom<unknown>(
        '0x' + 'F'.repeat(40),
        '0xAbCdEf0123456789abcdef0123456789ABCDEF01',
        10n ** 80n,
      ),
      fc.string(),
      fc.integer(),
      fc.bigInt(),
    );
    const paths: readonly (readonly (string | number)[])[] = [
      ['version'],
      ['salt'],
      ['solver'],
      ['inputs'],
      ['inputs', 0, 'payment', 'amount'],
      ['inputs', 0, 'payment', 'currency'],
      ['inputs', 0, 'refunds'],
      ['inputs', 0, 'refunds', 0, 'deadline'],
      ['inputs', 0, 'refunds', 0, 'extraData'],
      ['output'],
      ['output', 'calls', 0, 'to'],
      ['output', 'calls', 0, 'value'],
      ['output', 'calls', 0, 'data'],
      ['output', 'deadline'],
      ['output', 'extraData'],
      ['output', 'payments', 0, 'expectedAmount'],
      ['fees', 0, 'amount'],
    ];
    const call = { to: '0x' + 'ab'.repeat(20), data: '0x1234', value: 5n };
    fc.assert(
      fc.property(buildInput, fc.constantFrom(...paths), odd, (input, path, value) => {
        const withCall = { ...input, output: { ...input.output, calls: [call], payments: [] } };
        const orderData = structuredClone(buildOrder(withCall).orderData) as unknown as Record<
          string,
          unknown
        >;
        const fees = orderData.fees as unknown[];
        if (fees.length === 0) fees.push({ chainId: 'a', recipient: 'b', currency: 'c', amount: '1' });
        const payments = (orderData.output as { payments: unknown[] }).payments;
        payments.push({ recipient: 'r', currency: 'c', minimumAmount: '1', expectedAmount: '2' });
        const refunds = (orderData.inputs as { refunds: unknown[] }[])[0].refunds;
        if (refunds.length === 0) {
          refunds.push({
            chainId: 'a',
            recipient: 'b',
            currency: 'c',
            minimumAmount: '1',
            deadline: 1,
            extraData: '0x',
          });
        }
        let target: Record<string | number, unknown> = orderData;
        for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
        target[path[path.length - 1]] = value;
        const outcome = (hash: () => Hex) => {
          try {
            return { id: hash() };
          } catch {
            return { refused: true };
          }
        };
        const order = orderData as unknown as OrderData;
        expect(outcome(() => hashOrder(order, input.hubChainId))).toEqual(
          outcome(() => viemStructHash(order, input.hubChainId)),
        );
      }),
      { numRuns: 500 },
    );
  });
});
