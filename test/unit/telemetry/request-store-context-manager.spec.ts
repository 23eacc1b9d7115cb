import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { currentRequestId, withRequestId } from '../../../src/common/logging/request-context.js';
import { RequestStoreContextManager } from '../../../src/telemetry/request-store-context-manager.js';

const KEY = createContextKey('test key');
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe(RequestStoreContextManager.name, () => {
  const sut = new RequestStoreContextManager();

  it('is the root context outside any store', () => {
    expect(sut.active()).toBe(ROOT_CONTEXT);
  });

  it('keeps the request id when a tracing context is entered, and the tracing context when the request id is', async () => {
    const traced = ROOT_CONTEXT.setValue(KEY, 'span');
    await sut.with(traced, () =>
      withRequestId('req-1', async () => {
        await tick();
        expect(sut.active()).toBe(traced);
        expect(currentRequestId()).toBe('req-1');
        const inner = traced.setValue(KEY, 'child');
        await sut.with(inner, async () => {
          await tick();
          expect(sut.active().getValue(KEY)).toBe('child');
          expect(currentRequestId()).toBe('req-1');
        });
        expect(sut.active()).toBe(traced);
      }),
    );
    expect(sut.active()).toBe(ROOT_CONTEXT);
    expect(currentRequestId()).toBeUndefined();
  });

  it('passes this and the arguments to the function it runs', () => {
    const self = { factor: 3 };
    const result = sut.with(
      ROOT_CONTEXT,
      function (this: typeof self, value: number) {
        return this.factor * value;
      },
      self,
      7,
    );
    expect(result).toBe(21);
  });

  it('binds a function to a context, wherever it is called later, keeping the caller request id', async () => {
    const bound = sut.bind(
      ROOT_CONTEXT.setValue(KEY, 'bound'),
      (suffix: string) => `${String(sut.active().getValue(KEY))}${suffix} ${currentRequestId()}`,
    );
    expect(bound.length).toBe(1);
    await withRequestId('req-2', async () => {
      await tick();
      expect(bound('!')).toBe('bound! req-2');
    });
  });
});
