/**
 * How deep and how wide a JSON body may be. Nothing Ferry takes nests deeper than a handful of levels or lists more
 * than a few hundred items (a quote's `txs` and `appFees`); bodies past these bounds are refused before any
 * validation or transformation walks them (docs/errors.md, INPUT_TOO_COMPLEX).
 */
export const JSON_LIMITS = { maxDepth: 32, maxArrayLength: 1_000, maxKeys: 1_000 } as const;

/** An error Fastify hands to the app's error filter: `code` names it there (src/common/http/http-error.filter.ts). */
export class JsonBodyError extends Error {
  readonly statusCode = 400;

  constructor(
    readonly code:
      'FST_ERR_CTP_EMPTY_JSON_BODY' | 'FST_ERR_CTP_INVALID_JSON_BODY' | 'FERRY_INPUT_TOO_COMPLEX',
    message: string,
  ) {
    super(message);
    this.name = 'JsonBodyError';
  }
}

/**
 * Parses a JSON body and checks its shape without recursion: at most `maxDepth` levels of nesting, `maxArrayLength`
 * items in an array and `maxKeys` keys in an object; `__proto__` and `constructor.prototype` keys are refused as
 * Fastify's own parser refuses them. Throws JsonBodyError.
 */
export function parseJsonBody(text: string, limits = JSON_LIMITS): unknown {
  if (text.trim() === '') {
    throw new JsonBodyError('FST_ERR_CTP_EMPTY_JSON_BODY', 'The request body is empty but declared as JSON');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new JsonBodyError('FST_ERR_CTP_INVALID_JSON_BODY', 'The request body is not valid JSON');
  }
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limits.maxDepth) {
      throw new JsonBodyError(
        'FERRY_INPUT_TOO_COMPLEX',
        `The request body nests deeper than ${limits.maxDepth} levels`,
      );
    }
    if (Array.isArray(node)) {
      if (node.length > limits.maxArrayLength) {
        throw new JsonBodyError(
          'FERRY_INPUT_TOO_COMPLEX',
          `An array in the request body has more than ${limits.maxArrayLength} items`,
        );
      }
      for (const item of node) stack.push([item, depth + 1]);
      continue;
    }
    const keys = Object.keys(node);
    if (keys.length > limits.maxKeys) {
      throw new JsonBodyError(
        'FERRY_INPUT_TOO_COMPLEX',
        `An object in the request body has more than ${limits.maxKeys} keys`,
      );
    }
    for (const key of keys) {
      const child = (node as Record<string, unknown>)[key];
      if (
        key === '__proto__' ||
        (key === 'constructor' && child !== null && typeof child === 'object' && 'prototype' in child)
      ) {
        throw new JsonBodyError('FST_ERR_CTP_INVALID_JSON_BODY', 'The request body carries a forbidden key');
      }
      stack.push([child, depth + 1]);
    }
  }
  return value;
}
