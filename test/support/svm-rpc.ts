import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Buffer } from 'node:buffer';
import { address, getTransactionDecoder } from '@solana/kit';
import type { SvmTransactionRecord } from '../../src/chains/svm/svm-deposit-reader.js';
import type { SvmTestChain } from './litesvm.js';

/** How the server answers: from the VM, with a JSON-RPC error, or not at all (a timeout for the caller). */
export type SvmRpcMode = 'answer' | 'error' | 'hang';

/**
 * A Solana JSON-RPC endpoint on loopback answered by a LiteSVM instance: the real VM behind a real HTTP socket, for
 * pointing Ferry's SVM chain RPC at it (`RPC_URL_792703809`). It answers what Ferry reads (`getLatestBlockhash`,
 * `getBalance`, `getSlot`, `getTransaction` in base64 with balances before and after) and `sendTransaction` (base64,
 * executed at once; every slot counts as finalized); anything else is a JSON-RPC "method not found". `mode` scripts
 * failures.
 */
export class SvmRpcServer {
  mode: SvmRpcMode = 'answer';
  /** False: `getTransaction` reports `blockTime: null`, as a node does for a slot whose time it does not have. */
  reportsBlockTime = true;
  /** Every method called, in order. */
  readonly calls: string[] = [];
  private server: Server | null = null;
  private readonly hanging = new Set<() => void>();
  private readonly transactions = new Map<string, { wire: string; record: SvmTransactionRecord }>();

  constructor(private readonly chain: SvmTestChain) {}

  private get vm() {
    return this.chain.vm;
  }

  get url(): string {
    const port = (this.server?.address() as AddressInfo | null)?.port ?? 0;
    return `http://127.0.0.1:${port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          id: number | string;
          method: string;
          params?: unknown[];
        };
        this.calls.push(body.method);
        if (this.mode === 'hang') {
          this.hanging.add(() => response.destroy());
          return;
        }
        const reply =
          this.mode === 'error'
            ? { error: { code: -32005, message: 'Node is unhealthy' } }
            : this.answer(body.method, body.params ?? []);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...reply }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const close of this.hanging) close();
    this.hanging.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(method: string, params: unknown[]): { result: unknown } | { error: unknown } {
    const slot = Number(this.vm.getClock().slot);
    const context = { slot, apiVersion: '2.2.0' };
    switch (method) {
      case 'getLatestBlockhash':
        return {
          result: {
            context,
            value: { blockhash: this.vm.latestBlockhash(), lastValidBlockHeight: slot + 150 },
          },
        };
      case 'getBalance':
        return {
          result: { context, value: Number(this.vm.getBalance(address(String(params[0]))) ?? 0n) },
        };
      case 'getSlot':
        return { result: slot };
      case 'sendTransaction': {
        const wire = String(params[0]);
        const record = this.chain.executeAndRecord(
          getTransactionDecoder().decode(Buffer.from(wire, 'base64')),
        );
        this.transactions.set(record.signature, { wire, record });
        return { result: record.signature };
      }
      case 'getTransaction': {
        const sent = this.transactions.get(String(params[0]));
        if (!sent) return { result: null };
        const answer = transactionResponse(sent.wire, sent.record);
        return { result: this.reportsBlockTime ? answer : { ...answer, blockTime: null } };
      }
      default:
        return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
  }
}

/** A `getTransaction` answer (encoding base64, v0) for an executed transaction, indexes in message order. */
function transactionResponse(wire: string, record: SvmTransactionRecord) {
  const keys = [...record.lamports.keys()];
  const tokenBalances = (phase: 'pre' | 'post') =>
    keys.flatMap((key, accountIndex) => {
      const token = record.tokens.get(key);
      return token
        ? [
            {
              accountIndex,
              mint: token.mint,
              owner: token.owner,
              programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
              uiTokenAmount: {
                amount: token[phase].toString(),
                decimals: 0,
                uiAmount: null,
                uiAmountString: '',
              },
            },
          ]
        : [];
    });
  return {
    slot: Number(record.slot),
    blockTime: record.blockTime,
    version: 0,
    transaction: [wire, 'base64'],
    meta: {
      err: record.failed ? { InstructionError: [0, 'Custom'] } : null,
      status: record.failed ? { Err: { InstructionError: [0, 'Custom'] } } : { Ok: null },
      fee: Number(record.fee),
      preBalances: keys.map((key) => Number(record.lamports.get(key)!.pre)),
      postBalances: keys.map((key) => Number(record.lamports.get(key)!.post)),
      preTokenBalances: tokenBalances('pre'),
      postTokenBalances: tokenBalances('post'),
      innerInstructions: [],
      logMessages: [],
      loadedAddresses: { writable: [], readonly: [] },
      rewards: [],
      computeUnitsConsumed: 0,
    },
  };
}
