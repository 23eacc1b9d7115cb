import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { ERROR_CODES } from '../../../src/common/http/error-codes.js';

const DOCUMENT = new URL('../../../docs/openapi.json', import.meta.url);

/** A client as an integrator would write it against the generated types; it must compile, and misuse must not. */
const CLIENT = `
import type { components, paths } from './ferry';

type QuoteBody = paths['/quote/v2']['post']['requestBody']['content']['application/json'];
type Quote = paths['/quote/v2']['post']['responses']['200']['content']['application/json'];
type ErrorBody = components['schemas']['ErrorResponse'];
type Status = paths['/intents/status/v3']['get']['responses']['200']['content']['application/json'];
type Health = paths['/health']['get']['responses']['200']['content']['application/json'];
type Indexed = paths['/transactions/index']['post']['responses']['200']['content']['application/json'];
type Permit = paths['/execute/permits']['post']['responses']['200']['content']['application/json'];

export class FerryError extends Error {
  constructor(readonly body: ErrorBody) {
    super(body.message);
  }
}

async function call<T>(base: string, path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(base + path, init);
  if (!response.ok) throw new FerryError((await response.json()) as ErrorBody);
  return (await response.json()) as T;
}

export async function getQuote(base: string, body: QuoteBody): Promise<{ orderId: string; check?: string; fee: string }> {
  const quote = await call<Quote>(base, '/quote/v2', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    orderId: quote.protocol.v2.orderId,
    check: quote.steps[quote.steps.length - 1]?.items[0]?.check?.endpoint,
    fee: quote.fees.relayer.minimumAmount,
  };
}

export const statusOf = (base: string, id: string) => call<Status>(base, '/intents/status/v3?requestId=' + id);
export const isReady = async (base: string) => (await call<Health>(base, '/health')).status === 'ok';
export const indexed = (answer: Indexed): number => answer.deposits;
export const relayed = (answer: Permit): string => answer.txHash;
export const sponsored = (quote: Quote): boolean => quote.feeSponsorship.quoted.selectedComponents.length > 0;

export function retryable(error: FerryError): boolean {
  const code: ErrorBody['errorCode'] = error.body.errorCode;
  return code === 'RATE_LIMITED' || code === 'SERVICE_UNAVAILABLE' || error.body.statusCode >= 500;
}

// @ts-expect-error a decimal string, not a number
export const wrongType = (quote: Quote): number => quote.fees.gas.minimumAmount;
// @ts-expect-error an error code the registry does not have
export const unknownCode: ErrorBody['errorCode'] = 'NOT_A_CODE';
// @ts-expect-error the quote body needs its required fields
export const incomplete: QuoteBody = { user: '0x0' };
`;

/**
 * The server's own answers are what the schemas say: each route's response type (as the code declares it) must be
 * assignable to the generated schema, so a schema that drifts from what a route returns does not compile.
 */
const FAITHFUL = (root: string) => `
import type { components } from './ferry';
import type { QuoteResponse, PriceResponse } from '${root}src/quotes/quote-response.js';
import type { ErrorBody } from '${root}src/common/http/api-error.js';
import type { ErrorCode } from '${root}src/common/http/error-codes.js';

type Schemas = components['schemas'];
export const faithful = {
  quote: (body: QuoteResponse): Schemas['QuoteResponse'] => body,
  price: (body: PriceResponse): Schemas['PriceResponse'] => body,
  error: (body: ErrorBody & { statusCode: number }): Schemas['ErrorResponse'] => ({ ...body }),
  // The enum and the registry, both ways.
  codes: (code: ErrorCode): Schemas['ErrorResponse']['errorCode'] => code,
  registry: (code: Schemas['ErrorResponse']['errorCode']): ErrorCode => code,
};
`;

describe('docs/openapi.json', () => {
  const document = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as {
    servers?: unknown[];
    paths: Record<
      string,
      Record<string, { operationId?: string; responses: Record<string, { content?: unknown }> }>
    >;
    components: { schemas: { ErrorResponse: { properties: { errorCode: { enum: string[] } } } } };
  };
  const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));

  it('names every operation readably, describes every response, and enumerates the registry’s error codes', () => {
    for (const operation of operations) {
      expect(operation.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
      for (const response of Object.values(operation.responses)) expect(response.content).toBeDefined();
    }
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    expect(document.components.schemas.ErrorResponse.properties.errorCode.enum).toEqual(
      Object.keys(ERROR_CODES),
    );
    expect(document.servers).toHaveLength(1);
  });

  it("generates TypeScript types (openapi-typescript) that a small client and the server's response types compile against", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-client-'));
    // Immutable (readonly arrays and properties): the server's response types are readonly.
    const ast = await openapiTS(DOCUMENT, { immutable: true });
    writeFileSync(join(dir, 'ferry.ts'), astToString(ast));
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    writeFileSync(join(dir, 'faithful.ts'), FAITHFUL(fileURLToPath(new URL('../../../', import.meta.url))));
    const program = ts.createProgram([join(dir, 'client.ts'), join(dir, 'faithful.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 60_000);
});
