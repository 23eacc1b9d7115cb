import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { resolve } from 'node:path';
import { ChainRegistry, loadChainRegistry } from '../../../src/chains/chain-registry.js';
import { ChainsController } from '../../../src/chains/chains.controller.js';
import { ChainsModule } from '../../../src/chains/chains.module.js';
import { HttpErrorFilter } from '../../../src/common/http/http-error.filter.js';
import type { AppConfig } from '../../../src/config/app-config.js';
import { ConfigModule } from '../../../src/config/config.module.js';

interface ChainBody {
  id: number;
  name: string;
  httpRpcUrl: string;
  wsRpcUrl?: string;
  explorerUrl?: string;
  vmType: string;
  currency: { id: string; address: string; decimals: number; supportsBridging: boolean };
  erc20Currencies: { id: string; address: string; supportsPermit: boolean }[];
  solverAddresses: string[];
  protocol: { v2: { chainId: string; depository: string } };
}

async function start(module: Parameters<typeof NestFactory.create>[0]): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), {
    logger: false,
  });
  app.useGlobalFilters(new HttpErrorFilter());
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

describe(ChainsController.name, () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const registry = loadChainRegistry(
      {
        DEVNET_B_RPC_URL: 'https://user:secret@devnet.example/rpc?apiKey=secret',
        DEVNET_B_WS_RPC_URL: 'wss://devnet.example/ws?token=secret',
      },
      'test',
      resolve('configs'),
    );
    app = await start(ChainsModule.forRoot(registry));
  });

  afterAll(async () => {
    await app?.close();
  });

  async function chains(): Promise<ChainBody[]> {
    const response = await app.inject({ method: 'GET', url: '/chains' });
    expect(response.statusCode).toBe(200);
    return response.json<{ chains: ChainBody[] }>().chains;
  }

  it('lists every chain with a currency object, no key needed', async () => {
    const sut = await chains();
    expect(sut.map((chain) => chain.id)).toEqual(
      expect.arrayContaining([31337, 31338, 1337, 999, 3586256, 792703809]),
    );
    for (const chain of sut) {
      expect(chain).toEqual(
        expect.objectContaining({
          name: expect.any(String),
          displayName: expect.any(String),
          httpRpcUrl: expect.any(String),
          vmType: expect.stringMatching(/^(evm|svm|perps-a|perps-b)$/),
          depositEnabled: true,
          currency: expect.objectContaining({
            id: expect.any(String),
            symbol: expect.any(String),
            name: expect.any(String),
            address: expect.any(String),
            decimals: expect.any(Number),
            supportsBridging: true,
          }),
          solverAddresses: [expect.any(String)],
          protocol: { v2: { chainId: chain.name, depository: expect.any(String) } },
        }),
      );
    }
  });

  it('answers the devnet shape clients configure themselves from', async () => {
    const devnetA = (await chains()).find((chain) => chain.id === 31337);
    expect(devnetA).toMatchObject({
      name: 'ferry-devnet-a',
      httpRpcUrl: 'http://127.0.0.1:8545',
      vmType: 'evm',
      currency: { id: 'eth', address: '0x0000000000000000000000000000000000000000', decimals: 18 },
      solverAddresses: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
      protocol: {
        v2: { chainId: 'ferry-devnet-a', depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
      },
    });
    expect(devnetA?.erc20Currencies).toEqual([
      expect.objectContaining({ id: 'weth', supportsPermit: false }),
      expect.objectContaining({
        id: 'usdc',
        address: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
        supportsPermit: true,
      }),
    ]);
    expect(devnetA).not.toHaveProperty('wsRpcUrl');
    expect(devnetA).not.toHaveProperty('explorerUrl');
  });

  it('never shows credentials from RPC URLs', async () => {
    const response = await app.inject({ method: 'GET', url: '/chains' });
    expect(response.body).not.toContain('secret');
    const devnetB = response.json<{ chains: ChainBody[] }>().chains.find((chain) => chain.id === 31338);
    expect(devnetB).toMatchObject({
      httpRpcUrl: 'https://devnet.example/rpc',
      wsRpcUrl: 'wss://devnet.example/ws',
    });
  });

  it('shows chains without RPC with an empty httpRpcUrl, and gives both perps A USDCs distinct ids', async () => {
    const sut = await chains();
    const perpsA = sut.find((chain) => chain.id === 1337);
    expect(perpsA?.httpRpcUrl).toBe('');
    expect(perpsA?.currency).toMatchObject({
      id: 'usdc-perps',
      address: '0x00000000000000000000000000000000',
    });
    expect(perpsA?.erc20Currencies[0]).toMatchObject({ id: 'usdc-spot' });
    expect(sut.find((chain) => chain.id === 3586256)?.currency).toMatchObject({ address: '0', decimals: 6 });
  });

  it('builds the registry from the AppConfig when given the environment', async () => {
    const config = { environment: 'development', configDir: resolve('configs') } as AppConfig;
    const other = await start({
      module: class Root {},
      imports: [
        ConfigModule.forRoot(config),
        ChainsModule.fromConfig({ RPC_URL_999: 'https://node.example/evm' }),
      ],
    });
    try {
      expect(other.get(ChainRegistry).chain(999).rpcUrl).toBe('https://node.example/evm');
      const response = await other.inject({ method: 'GET', url: '/chains' });
      expect(
        response.json<{ chains: ChainBody[] }>().chains.find((chain) => chain.id === 999)?.httpRpcUrl,
      ).toBe('https://node.example/evm');
    } finally {
      await other.close();
    }
  });
});
