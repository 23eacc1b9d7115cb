import {
  type AbiEvent,
  type AbiFunction,
  toEventSelector,
  toEventSignature,
  toFunctionSelector,
  toFunctionSignature,
} from 'viem';
import { depositoryAbi } from '../../../../src/chains/abi/depository.js';
import { eip3009Abi } from '../../../../src/chains/abi/eip3009.js';
import { erc20Abi } from '../../../../src/chains/abi/erc20.js';

const signatures = (abi: readonly (AbiFunction | AbiEvent)[]) =>
  abi.map((item) =>
    item.type === 'function'
      ? `function ${toFunctionSignature(item)} ${item.stateMutability}${item.outputs.length ? ` returns (${item.outputs.map((output) => output.type).join(',')})` : ''}`
      : `event ${toEventSignature(item)}`,
  );

describe('Depository ABI (the contract the Solidity depository matches)', () => {
  it('has exactly the documented entries', () => {
    expect(signatures(depositoryAbi)).toEqual([
      'function depositNative(address,bytes32) payable',
      'function depositErc20(address,address,uint256,bytes32) nonpayable',
      'function depositErc20WithAuthorization(address,address,uint256,bytes32,uint256,uint256,bytes32,uint8,bytes32,bytes32) nonpayable',
      'event NativeDeposit(bytes32,address,uint256)',
      'event Erc20Deposit(bytes32,address,address,uint256)',
    ]);
  });

  it('indexes the order id and depositor (and token) of its events', () => {
    const indexed = (name: string) =>
      (depositoryAbi.find((item) => item.name === name) as AbiEvent).inputs.map(
        (input) => input.indexed ?? false,
      );
    expect(indexed('NativeDeposit')).toEqual([true, true, false]);
    expect(indexed('Erc20Deposit')).toEqual([true, true, true, false]);
  });

  it('has the selectors and topics docs/steps.md lists', () => {
    const selectors = Object.fromEntries(
      depositoryAbi.map((item) => [
        item.name,
        item.type === 'function' ? toFunctionSelector(item) : toEventSelector(item),
      ]),
    );
    expect(selectors).toEqual({
      depositNative: '0x49290c1c',
      depositErc20: '0xe8017952',
      depositErc20WithAuthorization: '0xd63031c6',
      NativeDeposit: '0x626032f07a6fb1ad2abd9b1d19f4cb7dd37943cf99adf152f5d7d0e000f54640',
      Erc20Deposit: '0xc7670ca7ab7a59c92c9d71da2a40c328b58eeb96d531eee4825002c6d96e9cb0',
    });
  });
});

describe('Token ABIs', () => {
  it('covers approve, allowance, balanceOf, transfer (the solver) and EIP-3009 receiveWithAuthorization', () => {
    expect(signatures(erc20Abi)).toEqual([
      'function approve(address,uint256) nonpayable returns (bool)',
      'function allowance(address,address) view returns (uint256)',
      'function balanceOf(address) view returns (uint256)',
      'function transfer(address,uint256) nonpayable returns (bool)',
      'event Transfer(address,address,uint256)',
    ]);
    expect(signatures(eip3009Abi)[0]).toBe(
      'function receiveWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32) nonpayable',
    );
    expect(toFunctionSelector(erc20Abi[0])).toBe('0x095ea7b3');
    expect(toFunctionSelector(eip3009Abi[0])).toBe('0xef55bec6');
  });
});
