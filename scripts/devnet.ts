import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEVNET_ACCOUNTS,
  DEVNET_FUNDING,
  deployDevnet,
  type DevnetDeployment,
} from './devnet/deploy-devnet.js';
import {
  DEVNET_ORACLE_SIGNERS,
  DEVNET_ORACLE_THRESHOLD,
  ORACLE_VERIFIER_OWNER,
} from './devnet/deploy-oracle-verifier.js';
import { PRICE_FEED_DEPLOYER } from './devnet/deploy-price-feeds.js';
import { type LocalChain, repositoryRoot, startLocalChain } from './devnet/local-chain.js';

/**
 * `npm run devnet`: the two development chains (31337 on 127.0.0.1:8545, 31338 on :8546) mining a block every
 * second, Ferry's contracts deployed and the solver and demo user funded, their addresses written to
 * `configs/devnet.addresses.json` for `ENVIRONMENT=development`. Runs until Ctrl-C (docs/devnet.md).
 *
 * Environment: DEVNET_A_PORT (8545), DEVNET_B_PORT (8546), DEVNET_BLOCK_INTERVAL_MS (1000), DEVNET_AUTOMINE
 * (false: a transaction waits for the next interval block, as on a real chain).
 */
interface ChainSpec {
  readonly chainId: number;
  readonly name: string;
  readonly port: number;
  /** `DEVNET_<variable>_RPC_URL` is the app's RPC URL variable of this chain. */
  readonly variable: string;
}

async function main(): Promise<void> {
  const intervalMs = integerVariable('DEVNET_BLOCK_INTERVAL_MS', 1000);
  const automine = booleanVariable('DEVNET_AUTOMINE', false);
  if (intervalMs === 0 && !automine) {
    fail('DEVNET_BLOCK_INTERVAL_MS', 'is 0 while DEVNET_AUTOMINE is false: no block would ever be mined');
  }
  const specs: ChainSpec[] = [
    { chainId: 31337, name: 'ferry-devnet-a', port: integerVariable('DEVNET_A_PORT', 8545), variable: 'A' },
    { chainId: 31338, name: 'ferry-devnet-b', port: integerVariable('DEVNET_B_PORT', 8546), variable: 'B' },
  ];
  if (specs[0].port === specs[1].port)
    fail('DEVNET_B_PORT', `must differ from DEVNET_A_PORT (${specs[0].port})`);

  const started = await Promise.allSettled(
    specs.map((spec) => startLocalChain({ chainId: spec.chainId, port: spec.port, automine, intervalMs })),
  );
  const chains = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stopAll = () => Promise.all(chains.map((chain) => chain.stop()));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }

  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await stopAll();
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stdout.write('\nstopping the devnets\n');
      void shutdown(0);
    });
  }
  for (const chain of chains) {
    void chain.exited.then((status) => {
      if (stopping) return;
      process.stderr.write(`chain ${chain.chainId} exited (${status}):\n${chain.output()}\n`);
      void shutdown(1);
    });
  }

  let deployments: DevnetDeployment[];
  try {
    deployments = await Promise.all(chains.map((chain) => deployDevnet(chain)));
  } catch (error) {
    await shutdown(1);
    throw error;
  }
  const file = join(repositoryRoot(), 'configs', 'devnet.addresses.json');
  writeFileSync(file, `${JSON.stringify(addressesFile(chains, deployments), null, 2)}\n`);
  process.stdout.write(summary(specs, chains, deployments, file, intervalMs, automine));
}

/** `configs/devnet.addresses.json` in the shape `loadChainRegistry` reads (`DevnetAddresses`). */
function addressesFile(chains: readonly LocalChain[], deployments: readonly DevnetDeployment[]) {
  return {
    $comment:
      'Written by `npm run devnet` (docs/devnet.md); replaces the devnets’ addresses of configs/chains.development.json. Safe to delete.',
    chains: Object.fromEntries(
      chains.map((chain, index) => [
        String(chain.chainId),
        {
          depository: deployments[index].depository,
          callExecutor: deployments[index].callExecutor,
          depositAddressFactory: deployments[index].depositAddressFactory,
          solver: DEVNET_ACCOUNTS.solver.address,
          currencies: { USDC: deployments[index].usdc, WETH: deployments[index].weth },
        },
      ]),
    ),
  };
}

function summary(
  specs: readonly ChainSpec[],
  chains: readonly LocalChain[],
  deployments: readonly DevnetDeployment[],
  file: string,
  intervalMs: number,
  automine: boolean,
): string {
  const mining = [
    intervalMs > 0 ? `a block every ${intervalMs} ms` : '',
    automine ? 'each transaction at once' : '',
  ]
    .filter(Boolean)
    .join(', plus ');
  const lines = ['', `Ferry devnets running (mining ${mining}):`, ''];
  chains.forEach((chain, index) => {
    const deployment = deployments[index];
    lines.push(
      `  ${specs[index].name}  chain id ${chain.chainId}  ${chain.rpcUrl}`,
      `    FerryDepository  ${deployment.depository}  (owner: solver)`,
      `    USDC             ${deployment.usdc}`,
      `    WETH             ${deployment.weth}`,
      `    SmartWallet      ${deployment.smartWallet}  (owner: user)`,
      `    CallExecutor     ${deployment.callExecutor}  (solver: solver)`,
      `    DepositAddresses ${deployment.depositAddressFactory}  (factory; owner: solver)`,
    );
    if (deployment.priceFeeds) {
      lines.push(`    Price feeds (USD, 8 decimals, owner: account #5 ${PRICE_FEED_DEPLOYER.address}):`);
      for (const [asset, address] of Object.entries(deployment.priceFeeds)) {
        lines.push(`      ${asset.padEnd(14)} ${address}`);
      }
    }
    if (deployment.oracleVerifier) {
      lines.push(
        `    OracleVerifier   ${deployment.oracleVerifier}  (hub oracle; owner: account #4 ${ORACLE_VERIFIER_OWNER.address};` +
          ` threshold ${DEVNET_ORACLE_THRESHOLD})`,
      );
      // The signers' keys are Hardhat's public ones, listed in docs/oracle-verifier.md; the summary names them only.
      DEVNET_ORACLE_SIGNERS.forEach((signer, index) =>
        lines.push(`      oracle signer  ${signer.address}  (Hardhat account #${7 + index})`),
      );
    }
    lines.push('');
  });
  const usdc = (amount: bigint) => (amount / 1_000_000n).toLocaleString('en-US');
  lines.push(
    'Accounts (Hardhat’s public test keys: never use them on a real chain). Each has 10,000 ETH on both chains.',
  );
  const roles = {
    deployer: 'deploys the contracts, owns TestUSDC (mint)',
    solver: `fills and refunds, owns the depository; ${usdc(DEVNET_FUNDING.solverUsdc)} USDC`,
    user: `demo user; ${usdc(DEVNET_FUNDING.userUsdc)} USDC`,
    relayer: 'submits permit deposits',
  };
  for (const [role, note] of Object.entries(roles)) {
    const account = DEVNET_ACCOUNTS[role as keyof typeof roles];
    lines.push(`  ${role.padEnd(8)} ${account.address}  ${account.privateKey}`, `           ${note}`);
  }
  lines.push('', `Wrote ${file}.`);
  if (specs[0].port !== 8545 || specs[1].port !== 8546) {
    const variables = specs.map((spec, index) => `DEVNET_${spec.variable}_RPC_URL=${chains[index].rpcUrl}`);
    lines.push(`Ports differ from the defaults: start the API with ${variables.join(' ')} npm start`);
  } else {
    lines.push('Start the API in another terminal: npm start (ENVIRONMENT=development).');
  }
  lines.push('Ctrl-C stops the chains (their state is not kept).', '');
  return lines.join('\n');
}

function integerVariable(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^[0-9]+$/.test(text)) fail(name, `must be a non-negative integer (got "${text}")`);
  return Number(text);
}

function booleanVariable(name: string, fallback: boolean): boolean {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (text !== 'true' && text !== 'false') fail(name, `must be true or false (got "${text}")`);
  return text === 'true';
}

function fail(variable: string, problem: string): never {
  process.stderr.write(`${variable} ${problem}\n`);
  process.exit(1);
}

main().catch((error: unknown) => {
  process.stderr.write(`npm run devnet failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
