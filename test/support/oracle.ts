import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type Abi,
  type Address,
  concat,
  createPublicClient,
  type Hex,
  http,
  numberToHex,
  recoverAddress,
  slice,
} from 'viem';
import type { LogLevel } from '../../src/config/app-config.js';
import { JsonLogger } from '../../src/common/logging/json-logger.js';
import type { Attestation } from '../../src/oracle/attestation.js';
import { loadOracleConfig, type OracleConfig } from '../../src/oracle/config/oracle-config.js';
import { createOracleApp } from '../../src/oracle/create-oracle-app.js';
import { digestOf } from '../../src/oracle/messages/oracle-messages.js';
import { SECP256K1_N } from '../../src/oracle/signer/ethereum-signature.js';
import { RawKeySigner } from '../../src/oracle/signer/oracle-signer.js';
import { readArtifact } from '../../scripts/devnet/deploy-devnet.js';
import type { Devnet } from './devnet.js';

/**
 * Hardhat's well-known accounts #6 to #10, used as oracle signers: none of them is a devnet role (deployer, solver,
 * user, relayer, price-feed deployer), so a signature can never be mistaken for one of those accounts'. Public keys:
 * never fund them anywhere real.
 */
export const ORACLE_SIGNER_KEYS = {
  six: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  seven: '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  eight: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  nine: '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
  ten: '0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897',
} as const satisfies Record<string, Hex>;

export interface RunningOracle {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly signer: RawKeySigner;
  readonly config: OracleConfig;
  readonly app: NestFastifyApplication;
  stop(): Promise<void>;
}

export interface StartOracleOptions {
  /** ENVIRONMENT=test is set; give the devnet RPCs (DEVNET_A_RPC_URL, DEVNET_B_RPC_URL) and anything else here. */
  readonly env?: Record<string, string>;
  /** Default: Hardhat #7. */
  readonly privateKey?: Hex;
  /**
   * Nest keeps one logger per process (the last app created sets it for every `new Logger(…)`), so instances of one
   * test should share one logger. Default: a logger that prints errors only.
   */
  readonly logger?: JsonLogger;
}

/** One oracle instance as `npm run start:oracle` builds it (config, raw-key signer, app), listening on loopback. */
export async function startOracle(options: StartOracleOptions = {}): Promise<RunningOracle> {
  const privateKey = options.privateKey ?? ORACLE_SIGNER_KEYS.seven;
  const config = loadOracleConfig({ ENVIRONMENT: 'test', ECDSA_PRIVATE_KEY: privateKey, ...options.env });
  const signer = new RawKeySigner(privateKey);
  const app = await createOracleApp(config, signer, { logger: options.logger ?? new JsonLogger('error') });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, signer, config, app, stop: () => app.close() };
}

/** A JSON logger that keeps its lines, for assertions on what the oracle logged. */
export function captureLogs(level: LogLevel = 'debug') {
  const lines: string[] = [];
  const logger = new JsonLogger(level, (line) => lines.push(line));
  /** The parsed lines whose `msg` is `msg`. */
  const find = (msg: string) =>
    lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === msg);
  return {
    logger,
    /** Every line so far, raw (to check that a secret appears in none). */
    text: () => lines.join('\n'),
    find,
    /** What each peer's answer came to when `messageId` was aggregated (its `peer attestation` line), by peer url. */
    peerOutcomes: (messageId: string) =>
      Object.fromEntries(
        find('peer attestation')
          .filter((line) => line.messageId === messageId)
          .map((line) => [line.peer as string, line]),
      ),
  };
}

export interface OracleAnswer<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}

/** POST `body` as JSON to `url + path`, with an `x-api-key` when given. */
export async function postJson<T = Record<string, unknown>>(
  url: string,
  path: string,
  body: unknown,
  apiKey?: string,
): Promise<OracleAnswer<T>> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** The signer each signature recovers to (viem `recoverAddress` over `digestOf(kind, message, domain)`). */
export async function recoveredSigners(attestation: Attestation): Promise<Address[]> {
  const digest = digestOf(attestation.kind, attestation.message, attestation.domain);
  return Promise.all(
    attestation.signatures.map((signature) =>
      recoverAddress({ hash: digest, signature: signature.signature }),
    ),
  );
}

/** The same signature with `s` replaced by `n - s` and `v` flipped: ecrecover still gives the same signer. */
export function malleated(signature: Hex): Hex {
  const s = BigInt(slice(signature, 32, 64));
  const v = Number(BigInt(slice(signature, 64, 65)));
  return concat([
    slice(signature, 0, 32),
    numberToHex(SECP256K1_N - s, { size: 32 }),
    numberToHex(v === 27 ? 28 : 27, { size: 1 }),
  ]);
}

/** The signature with `v` written as the recovery id (0 or 1) instead of 27 or 28. */
export function withRawRecoveryId(signature: Hex): Hex {
  const v = Number(BigInt(slice(signature, 64, 65)));
  return concat([slice(signature, 0, 64), numberToHex(v - 27, { size: 1 })]);
}

/** How many distinct signers the hub devnet's FerryOracleVerifier counts among the attestation's signatures. */
export async function countedOnchain(
  hub: Devnet,
  attestation: Pick<Attestation, 'messageId' | 'signatures'>,
): Promise<number> {
  const reader = createPublicClient({ transport: http(hub.rpcUrl, { retryCount: 0 }) });
  const counted = await reader.readContract({
    address: hub.deployment.oracleVerifier!,
    abi: readArtifact('FerryOracleVerifier').abi as Abi,
    functionName: 'verify',
    args: [attestation.messageId, attestation.signatures.map((signature) => signature.signature)],
  });
  return Number(counted);
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A loopback HTTP relay in front of an oracle: records every request (method, path, headers, body) and forwards it.
 * With `hold`, requests wait until `release()`, so the oracle behind it is slower than any peer time-out without the
 * test depending on a clock. With `rewrite`, the oracle's answer is changed on the way back (a peer that lies).
 */
export class HttpRelay {
  readonly requests: RecordedRequest[] = [];
  private server: Server | null = null;
  private held: (() => void)[] = [];
  private released: boolean;
  private readonly rewrite: (body: string) => string;

  constructor(
    private readonly target: string,
    options: { hold?: boolean; rewrite?: (body: string) => string } = {},
  ) {
    this.released = !options.hold;
    this.rewrite = options.rewrite ?? ((body) => body);
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const recorded: RecordedRequest = {
          method: request.method ?? 'GET',
          url: request.url ?? '/',
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        };
        this.requests.push(recorded);
        const forward = () =>
          void this.forward(recorded).then(
            ({ status, body }) =>
              response.writeHead(status, { 'content-type': 'application/json' }).end(body),
            () => response.destroy(),
          );
        if (this.released) forward();
        else this.held.push(forward);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Lets the held requests (and every later one) through. */
  release(): void {
    this.released = true;
    for (const forward of this.held.splice(0)) forward();
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async forward(request: RecordedRequest): Promise<{ status: number; body: string }> {
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'x-api-key']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(`${this.target}${request.url}`, {
      method: request.method,
      headers,
      body: request.method === 'GET' ? undefined : request.body,
    });
    return { status: answer.status, body: this.rewrite(await answer.text()) };
  }
}
