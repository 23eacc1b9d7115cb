import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with one JSON-RPC call: forward it, then answer as the node did or with something else. */
export type RpcFault =
  /** Forward, then answer with this JSON-RPC error instead of the node's answer (the node did take the call). */
  | { readonly kind: 'error-after-forward'; readonly message: string }
  /** Forward, then drop the connection without an answer (a time-out as the caller sees it). */
  | { readonly kind: 'hang-up-after-forward' }
  /** Forward, then answer as the node did, `ms` later (a slow provider). */
  | { readonly kind: 'delay'; readonly ms: number }
  /** Forward, then answer as the node did once `until` settles (a caller held mid-way while the test acts). */
  | { readonly kind: 'hold'; readonly until: Promise<unknown> }
  /** Do not forward; answer with this JSON-RPC error. */
  | { readonly kind: 'error'; readonly message: string }
  /** Forward the same method with other params (e.g. a lagging `finalized` block), and answer with that. */
  | { readonly kind: 'forward-as'; readonly params: unknown[] }
  /** Forward, then answer with the node's `result` rewritten (another chain state, as a lying or forked node). */
  | { readonly kind: 'rewrite-result'; readonly rewrite: (result: unknown) => unknown };

/**
 * A real JSON-RPC proxy on loopback in front of a devnet, which injects faults into chosen calls: `decide` sees each
 * call's method and params and returns a fault, or null to pass it through.
 */
export class RpcProxy {
  private server: Server | null = null;
  readonly calls: { method: string; fault: boolean }[] = [];

  constructor(
    private readonly target: string,
    private readonly decide: (method: string, params: unknown[]) => RpcFault | null,
  ) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      void this.handle(request).then(
        (answer) => {
          if (answer === null) {
            request.socket.destroy();
            return;
          }
          response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
        },
        () => response.writeHead(502).end(),
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(request: IncomingMessage): Promise<string | null> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const call = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
    if (Array.isArray(call)) return this.forward(body);
    const fault = this.decide(call.method, call.params ?? []);
    this.calls.push({ method: call.method, fault: fault !== null });
    if (fault?.kind === 'error') return rpcError(call.id, fault.message);
    const answer = await this.forward(
      fault?.kind === 'forward-as' ? JSON.stringify({ ...call, params: fault.params }) : body,
    );
    if (fault?.kind === 'error-after-forward') return rpcError(call.id, fault.message);
    if (fault?.kind === 'hang-up-after-forward') return null;
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === 'hold') await fault.until.catch(() => undefined);
    if (fault?.kind === 'rewrite-result') {
      const parsed = JSON.parse(answer) as { result?: unknown };
      if ('result' in parsed) return JSON.stringify({ ...parsed, result: fault.rewrite(parsed.result) });
    }
    return answer;
  }

  private async forward(body: string): Promise<string> {
    const response = await fetch(this.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return response.text();
  }
}

const rpcError = (id: unknown, message: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message } });
