import type { OracleClientConfig } from '../../config/oracle-client-config.js';
import type { AttestationService } from '../attestation.service.js';
import { type AttestationSource, HttpSource, InProcessSource } from './attestation-sources.js';
import { OracleGateway } from './oracle-gateway.js';

/**
 * The oracles Ferry asks: the instances of `ORACLE_URLS`, else the oracle mounted in this process, else none (null:
 * nothing is attested and nothing waits for an attestation).
 */
export function oracleGateway(
  config: OracleClientConfig,
  mounted: AttestationService | null,
): OracleGateway | null {
  const sources: AttestationSource[] =
    config.urls.length > 0
      ? config.urls.map((url) => new HttpSource(url, config.apiKey, config.timeoutMs))
      : mounted
        ? [new InProcessSource(mounted)]
        : [];
  return sources.length > 0 && config.domain
    ? new OracleGateway(sources, config.domain, config.signers, config.quorum)
    : null;
}
