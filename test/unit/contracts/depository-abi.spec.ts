import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, AbiParameter } from 'viem';
import { depositoryAbi, depositoryAdminAbi } from '../../../src/chains/abi/depository.js';
import { eip3009Abi } from '../../../src/chains/abi/eip3009.js';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const artifactAbi = (name: string): Abi =>
  JSON.parse(readFileSync(join(ROOT, 'contracts', 'artifacts', `${name}.json`), 'utf8')).abi;

/** One line per ABI entry: kind, name, parameter types (and names, `indexed`), mutability, outputs. */
function signatures(abi: Abi, withNames: boolean): string[] {
  const parameter = (input: AbiParameter & { indexed?: boolean }): string => {
    const type =
      'components' in input && input.components
        ? `(${input.components.map(parameter).join(',')})${input.type.slice('tuple'.length)}`
        : input.type;
    return [type, input.indexed ? 'indexed' : '', withNames ? input.name : ''].filter(Boolean).join(' ');
  };
  const list = (inputs: readonly AbiParameter[]) => inputs.map(parameter).join(', ');
  return abi.map((item) => {
    switch (item.type) {
      case 'function':
        return `function ${item.name}(${list(item.inputs)}) ${item.stateMutability} returns (${list(item.outputs)})`;
      case 'event':
        return `event ${item.name}(${list(item.inputs)})${item.anonymous ? ' anonymous' : ''}`;
      case 'error':
        return `error ${item.name}(${list(item.inputs)})`;
      default:
        return item.type;
    }
  });
}

describe('FerryDepository artifact', () => {
  const compiled = signatures(artifactAbi('FerryDepository'), true);

  it('has every entry of depositoryAbi, with the same names, types, indexing and mutability', () => {
    expect(compiled).toEqual(expect.arrayContaining(signatures(depositoryAbi, true)));
  });

  it('has every entry of depositoryAdminAbi (owner withdrawals and errors)', () => {
    expect(compiled).toEqual(expect.arrayContaining(signatures(depositoryAdminAbi, true)));
  });
});

describe('TestUSDC artifact', () => {
  it('has the ERC-20 and EIP-3009 entries Ferry calls on tokens', () => {
    expect(signatures(artifactAbi('TestUSDC'), false)).toEqual(
      expect.arrayContaining([...signatures(erc20Abi, false), ...signatures(eip3009Abi, false)]),
    );
  });
});
