import { hashTypedData, type Hex, verifyTypedData } from 'viem';
import { orderCallsFromTxs } from '../../../../src/quotes/domain/order/order-calls.js';
import {
  buildOrder,
  type BuildOrderInput,
  hashOrder,
  orderTypedData,
} from '../../../../src/quotes/domain/order/order-data.js';
import { expectQuoteError, svmUser, userAccount } from './fixtures.js';

const user = userAccount.address.toLowerCase();
const salt: Hex = `0x${'0c'.repeat(32)}`;
const base: BuildOrderInput = {
  hubChainId: 8453,
  solverChainId: 'base',
  solver: '0x2222222222222222222222222222222222222222',
  salt,
  inputs: [
    {
      payment: {
        chainId: 'ethereum',
        currency: '0x0000000000000000000000000000000000000000',
        amount: 10n ** 18n,
      },
      refunds: [
        {
          chainId: 'ethereum',
          recipient: user,
          currency: '0x0000000000000000000000000000000000000000',
          minimumAmount: 99n * 10n ** 16n,
          deadline: 1_793_600_000,
        },
      ],
    },
  ],
  output: {
    chainId: 'svm',
    payments: [
      {
        recipient: svmUser,
        currency: 'So11111111111111111111111111111111111111112',
        minimumAmount: 4_900_000_000n,
        expectedAmount: 5_000_000_000n,
      },
    ],
    deadline: 1_793_500_600,
  },
  fees: [
    { chainId: 'base', recipient: user, currency: '0x3333333333333333333333333333333333333333', amount: 5n },
  ],
  depository: '0x1111111111111111111111111111111111111111',
};

describe(buildOrder.name, () => {
  it('builds orderData in the spec shape, with amounts as decimal strings and deadlines as unix seconds', () => {
    const { orderData, paymentDetails } = buildOrder(base);
    expect(orderData).toEqual({
      version: 'v1',
      solverChainId: 'base',
      solver: '0x2222222222222222222222222222222222222222',
      salt,
      inputs: [
        {
          payment: {
            chainId: 'ethereum',
            currency: '0x0000000000000000000000000000000000000000',
            amount: '1000000000000000000',
            weight: '1',
          },
          refunds: [
            {
              chainId: 'ethereum',
              recipient: user,
              currency: '0x0000000000000000000000000000000000000000',
              minimumAmount: '990000000000000000',
              deadline: 1_793_600_000,
              extraData: '0x',
            },
          ],
        },
      ],
      output: {
        chainId: 'svm',
        payments: [
          {
            recipient: svmUser,
            currency: 'So11111111111111111111111111111111111111112',
            minimumAmount: '4900000000',
            expectedAmount: '5000000000',
          },
        ],
        calls: [],
        deadline: 1_793_500_600,
        extraData: '0x',
      },
      fees: [
        {
          chainId: 'base',
          recipient: user,
          currency: '0x3333333333333333333333333333333333333333',
          amount: '5',
        },
      ],
    });
    expect(paymentDetails).toEqual({
      chainId: 'ethereum',
      depository: '0x1111111111111111111111111111111111111111',
      currency: '0x0000000000000000000000000000000000000000',
      amount: '1000000000000000000',
    });
  });

  it('makes the order id the EIP-712 hash of the order under the FerryOrder domain of the hub chain', () => {
    const { orderData, orderId } = buildOrder(base);
    expect(orderId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(orderId).toBe(hashTypedData(orderTypedData(orderData, 8453)));
    expect(orderTypedData(orderData, 8453).domain).toEqual({
      name: 'FerryOrder',
      version: '1',
      chainId: 8453,
    });
    expect(hashOrder(orderData, 8453)).toBe(orderId);
  });

  it('hashes as viem hashTypedData does for every hub, whatever the hubs hashed before', () => {
    const { orderData } = buildOrder(base);
    const other = buildOrder({ ...base, salt: `0x${'ab'.repeat(32)}` }).orderData;
    for (const hub of [8453, 1, 31337, 8453, 1]) {
      for (const order of [orderData, other]) {
        expect(hashOrder(order, hub)).toBe(hashTypedData(orderTypedData(order, hub)));
      }
    }
  });

  it('is deterministic: the same input gives the same order and id', () => {
    expect(buildOrder(base)).toEqual(buildOrder(structuredClone(base)));
  });

  it('is JSON: the order survives a round trip and hashes to the same id', () => {
    const { orderData, orderId } = buildOrder(base);
    expect(hashOrder(JSON.parse(JSON.stringify(orderData)), 8453)).toBe(orderId);
  });

  it('treats hex in any letter case as the same order, but base58 as case sensitive', () => {
    const upper = { ...base, solver: base.solver.toUpperCase().replace('0X', '0x') };
    expect(buildOrder(upper).orderId).toBe(buildOrder(base).orderId);
    const output = base.output.payments[0]!;
    const otherCase = {
      ...base,
      output: { ...base.output, payments: [{ ...output, recipient: output.recipient.toLowerCase() }] },
    };
    expect(buildOrder(otherCase).orderId).not.toBe(buildOrder(base).orderId);
  });

  const input = base.inputs[0]!;
  const refund = input.refunds[0]!;
  const payment = base.output.payments[0]!;
  const variants: Record<string, BuildOrderInput> = {
    hubChainId: { ...base, hubChainId: 1 },
    version: { ...base, version: 'v2' },
    solverChainId: { ...base, solverChainId: 'arbitrum' },
    solver: { ...base, solver: '0x2222222222222222222222222222222222222223' },
    salt: { ...base, salt: `0x${'0d'.repeat(32)}` },
    'payment.chainId': {
      ...base,
      inputs: [{ ...input, payment: { ...input.payment, chainId: 'optimism' } }],
    },
    'payment.currency': { ...base, inputs: [{ ...input, payment: { ...input.payment, currency: '0x01' } }] },
    'payment.amount': { ...base, inputs: [{ ...input, payment: { ...input.payment, amount: 1n } }] },
    'payment.weight': { ...base, inputs: [{ ...input, payment: { ...input.payment, weight: 2n } }] },
    'refund.chainId': { ...base, inputs: [{ ...input, refunds: [{ ...refund, chainId: 'base' }] }] },
    'refund.recipient': { ...base, inputs: [{ ...input, refunds: [{ ...refund, recipient: '0x01' }] }] },
    'refund.currency': { ...base, inputs: [{ ...input, refunds: [{ ...refund, currency: '0x02' }] }] },
    'refund.minimumAmount': { ...base, inputs: [{ ...input, refunds: [{ ...refund, minimumAmount: 1n }] }] },
    'refund.deadline': { ...base, inputs: [{ ...input, refunds: [{ ...refund, deadline: 1 }] }] },
    'refund.extraData': { ...base, inputs: [{ ...input, refunds: [{ ...refund, extraData: '0x00' }] }] },
    'no refunds': { ...base, inputs: [{ ...input, refunds: [] }] },
    'second input': { ...base, inputs: [input, input] },
    'output.chainId': { ...base, output: { ...base.output, chainId: 'base' } },
    'output.recipient': {
      ...base,
      output: {
        ...base.output,
        payments: [{ ...payment, recipient: 'So11111111111111111111111111111111111111112' }],
      },
    },
    'output.currency': { ...base, output: { ...base.output, payments: [{ ...payment, currency: svmUser }] } },
    'output.minimumAmount': {
      ...base,
      output: { ...base.output, payments: [{ ...payment, minimumAmount: 1n }] },
    },
    'output.expectedAmount': {
      ...base,
      output: { ...base.output, payments: [{ ...payment, expectedAmount: 1n }] },
    },
    'output.calls': {
      ...base,
      output: { ...base.output, calls: [{ to: user, data: '0x12345678', value: 0n }] },
    },
    'output.deadline': { ...base, output: { ...base.output, deadline: 1 } },
    'output.extraData': { ...base, output: { ...base.output, extraData: '0x01' } },
    fees: { ...base, fees: [] },
    'fee.amount': { ...base, fees: [{ ...base.fees![0]!, amount: 6n }] },
  };

  it.each(Object.keys(variants))('changes the order id when %s changes', (field) => {
    expect(buildOrder(variants[field]!).orderId).not.toBe(buildOrder(base).orderId);
  });

  it('signs and verifies as typed data (for a future orderSignature)', async () => {
    const typedData = orderTypedData(buildOrder(base).orderData, 8453);
    const signature = await userAccount.signTypedData(typedData);
    await expect(verifyTypedData({ ...typedData, address: userAccount.address, signature })).resolves.toBe(
      true,
    );
  });

  it('refuses a salt that is not 32 bytes and an order without inputs', () => {
    expect(() => buildOrder({ ...base, salt: '0x01' })).toThrow(TypeError);
    expect(() => buildOrder({ ...base, inputs: [] })).toThrow(TypeError);
  });
});

describe(orderCallsFromTxs.name, () => {
  it("turns the quote's txs into order calls", () => {
    const calls = orderCallsFromTxs([{ to: user, data: '0xabcdef', value: '12' }]);
    expect(calls).toEqual([{ to: user, data: '0xabcdef', value: 12n }]);
    const { orderData } = buildOrder({ ...base, output: { ...base.output, calls } });
    expect(orderData.output.calls).toEqual([{ to: user, data: '0xabcdef', value: '12' }]);
  });

  it('names the field that breaks the spec pattern', () => {
    expectQuoteError(() => orderCallsFromTxs([{ to: '0x12', data: '0x', value: '0' }]), 'INVALID_ADDRESS', {
      field: 'txs[0].to',
    });
    expectQuoteError(() => orderCallsFromTxs([{ to: user, data: 'zz', value: '0' }]), 'INVALID_INPUT', {
      field: 'txs[0].data',
    });
    expectQuoteError(() => orderCallsFromTxs([{ to: user, data: '0x', value: '-1' }]), 'INVALID_INPUT', {
      field: 'txs[0].value',
    });
  });
});
