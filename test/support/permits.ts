import type { Address, Hex, PrivateKeyAccount } from 'viem';

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
