import { type Context, type ContextManager, ROOT_CONTEXT } from '@opentelemetry/api';
import { currentTraceContext, withTraceContext } from '../common/logging/request-context.js';

/**
 * OpenTelemetry's active context kept in the request's own AsyncLocalStorage store (request-context.ts), beside the
 * request id, instead of in a second AsyncLocalStorage as the SDK's default manager does: on Node 20 each one in use
 * costs every promise of the process a copy of its store.
 */
export class RequestStoreContextManager implements ContextManager {
  active(): Context {
    return (currentTraceContext() as Context | undefined) ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return withTraceContext(context, () => fn.apply(thisArg, args));
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target === 'function') {
      // eslint-disable-next-line @typescript-eslint/no-this-alias
      const manager = this;
      const bound = function (this: unknown, ...args: unknown[]) {
        return manager.with(context, () => (target as (...a: unknown[]) => unknown).apply(this, args));
      };
      Object.defineProperty(bound, 'length', { value: (target as () => unknown).length });
      return bound as T;
    }
    // Event emitters are not patched (the SDK's manager wraps each listener of each bound request and response):
    // a listener runs in the context it is emitted in, as with any AsyncLocalStorage, which is where Ferry's hooks
    // and the instrumentations' own listeners expect it (test/e2e/tracing.e2e-spec.ts).
    return target;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    return this;
  }
}
