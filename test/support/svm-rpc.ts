import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { address } from '@solana/kit';
import type { LiteSVM } from 'litesvm';

/** How the server answers: from the VM, with a JSON-RPC error, or not at all (a timeout for the caller). */
export type SvmRpcMode = 'answer' | 'error' | 'hang';

/**
 * A Solana JSON-RPC endpoint on loopback answered by a LiteSVM instance: the real VM behind a real HTTP socket, for
 * pointing Ferry's SVM chain RPC at it (`RPC_URL_792703809`). It answers what Ferry reads (`getLatestBlockhash`,
 * `getBalance`, `getSlot`); anything else is a JSON-RPC "method not found". `mode` scripts failures.
 */
export class SvmRpcServer {
  mode: SvmRpcMode = 'answer';
  /** Every method called, in order. */
  readonly calls: string[] = [];
  private server: Server | null = null;
  private readonly hanging = new Set<() => void>();

  constructor(private readonly vm: LiteSVM) {}

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
      default:
        return { error: { code: -32601, message: `Method not found: ${method}` } };
    }
  }
}
