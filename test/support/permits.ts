import { type Address, encodeFunctionData, type Hex, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { erc20Abi } from '../../src/chains/abi/erc20.js';
import type { TestApp } from './app.js';
import { type ChainClients, postJson } from './chain-clients.js';
import type { Devnet } from './devnet.js';

/** The `authorize` item of a `usePermit` quote's first step: what the user signs, and what is posted with it. */
export interface PermitItem {
  readonly sign: {
    domain: Record<string, unknown>;
    types: Record<string, { name: string; type: string }[]>;
    primaryType: string;
    value: Record<string, unknown>;
  };
  readonly post: { body: { kind: string; requestId: Hex } };
}

/** A quote's permit, signed: `POST /execute/permits?signature=<signature>` with `body` deposits it. */
export interface SignedPermit {
  readonly id: Hex;
  readonly user: Address;
  /** The authorization's `validBefore` (seconds): the quote's expiry. */
  readonly validBefore: number;
  readonly signature: Hex;
  readonly body: PermitItem['post']['body'];
  /** `/execute/permits?signature=…`, the path the body is posted to. */
  readonly path: string;
}

/** Signs, as `user`'s wallet does, the permit of a `usePermit` quote (the `POST /quote/v2` answer's body). */
export async function signPermit(quote: unknown, user: PrivateKeyAccount): Promise<SignedPermit> {
  const item = (quote as { steps: { items: { data: PermitItem }[] }[] }).steps[0].items[0].data;
  const signature = await user.signTypedData({
    domain: item.sign.domain,
    types: item.sign.types,
    primaryType: item.sign.primaryType,
    message: item.sign.value,
  });
  return {
    id: item.post.body.requestId,
    user: user.address,
    validBefore: Number(item.sign.value.validBefore),
    signature,
    body: item.post.body,
    path: `/execute/permits?signature=${signature}`,
  };
}

/**
 * A fresh user (its key the byte `seed` repeated) holding `usdc` of chain a's USDC, sent by the demo user, and no
 * ether: it can only deposit through a permit.
 */
export async function permitUser(
  clients: ChainClients,
  a: Devnet,
  seed: number,
  usdc: bigint,
): Promise<PrivateKeyAccount> {
  const user = privateKeyToAccount(`0x${seed.toString(16).padStart(2, '0').repeat(32)}` as Hex);
  await clients.send(
    a.chainId,
    a.accounts.user.privateKey,
    a.deployment.usdc,
    encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [user.address, usdc] }),
  );
  return user;
}

/** The `POST /quote/v2` body of `user`'s gasless (`usePermit`) bridge of `amount` of chain a's USDC to chain b's. */
export function usdcPermitQuoteBody(
  a: Devnet,
  b: Devnet,
  user: Address,
  amount: bigint,
): Record<string, unknown> {
  return {
    user,
    originChainId: a.chainId,
    destinationChainId: b.chainId,
    originCurrency: a.deployment.usdc,
    destinationCurrency: b.deployment.usdc,
    amount: amount.toString(),
    tradeType: 'EXACT_INPUT',
    usePermit: true,
  };
}

/**
 * `user`'s `usePermit` quote of `amount` (`usdcPermitQuoteBody`) from `app`, which must answer 200, signed: the permit
 * ready to post (`execute`).
 */
export async function quotedPermit(
  app: TestApp,
  a: Devnet,
  b: Devnet,
  user: PrivateKeyAccount,
  amount: bigint,
): Promise<{
  id: Hex;
  user: Address;
  validBefore: number;
  execute: () => ReturnType<typeof postJson>;
}> {
  const { code, body } = await postJson(app, '/quote/v2', usdcPermitQuoteBody(a, b, user.address, amount));
  expect(code).toBe(200);
  const permit = await signPermit(body, user);
  return {
    id: permit.id,
    user: user.address,
    validBefore: permit.validBefore,
    execute: () => postJson(app, permit.path, permit.body),
  };
}
