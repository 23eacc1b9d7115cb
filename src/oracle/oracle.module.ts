import { type DynamicModule, Module } from '@nestjs/common';
import { ReadClients } from '../chains/read-clients.js';
import type { ChainInfo } from '../chains/chain.js';
import { AttestationService } from './attestation.service.js';
import { type ChainAttestor, ORACLE_VM_TYPE_OF, UnconfiguredAttestor } from './chains/chain-attestor.js';
import { EvmAttestor } from './chains/evm-attestor.js';
import type { OracleConfig } from './config/oracle-config.js';
import { OracleApiKeys, OracleAuthGuard } from './oracle-auth.guard.js';
import { OracleController } from './oracle.controller.js';
import { PeerSignatures } from './peers/peer-signatures.js';
import type { OracleSigner } from './signer/oracle-signer.js';

/**
 * The attestation oracle (docs/oracle.md): its routes and the service behind them. Mounted by the oracle's own entry
 * point (`npm run start:oracle`, src/oracle/main.ts) and, when configured, inside the API process.
 */
@Module({})
export class OracleModule {
  static forRoot(config: OracleConfig, signer: OracleSigner): DynamicModule {
    const service = createAttestationService(config, signer);
    return {
      module: OracleModule,
      // Global: in the API process the solver's chain runtime asks this oracle (ChainRuntime).
      global: true,
      controllers: [OracleController],
      providers: [
        { provide: AttestationService, useValue: service },
        {
          provide: OracleApiKeys,
          useValue: new OracleApiKeys(config.apiKeys, config.environment === 'production'),
        },
        OracleAuthGuard,
      ],
      exports: [AttestationService],
    };
  }
}

/** The service of one oracle instance: an adapter per VM family (EVM reads chains; the others are not configured). */
export function createAttestationService(config: OracleConfig, signer: OracleSigner): AttestationService {
  const evm = new EvmAttestor(new ReadClients(config.rpcTimeoutMs));
  const attestors = (chain: ChainInfo): ChainAttestor =>
    chain.vmType === 'evm' ? evm : new UnconfiguredAttestor(ORACLE_VM_TYPE_OF[chain.vmType]);
  const peers = config.peers.length > 0 ? new PeerSignatures(config.peers, config.peerTimeoutMs) : null;
  return new AttestationService(config.chains, attestors, signer, config.domain, config.shadow, peers);
}
