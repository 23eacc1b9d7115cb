import { SvmBlockhashReader } from '../../../src/chains/svm/svm-blockhash-reader.js';
import { SvmTestChain } from '../../support/litesvm.js';
import { SvmRpcServer } from '../../support/svm-rpc.js';
import { chain } from '../../unit/quotes/steps/fixtures.js';

/** The blockhash of SVM deposits comes from the chain's RPC, here LiteSVM behind a real JSON-RPC socket. */
describe(SvmBlockhashReader.name, () => {
  let svm: SvmTestChain;
  let rpc: SvmRpcServer;
  let now: number;
  const svmChain = (rpcUrl: string | null) =>
    chain({ id: 792703809, vmType: 'svm', rpcUrl, rpcUrlVariable: 'RPC_URL_792703809' });
  // A generous timeout except where the timeout itself is tested: the machine is shared and the first fetch is slow.
  const sut = (timeoutMs = 5000) => new SvmBlockhashReader({ cacheMs: 2000, timeoutMs }, () => now);

  beforeEach(async () => {
    now = 1_000_000;
    svm = new SvmTestChain();
    rpc = await new SvmRpcServer(svm).start();
  });
  afterEach(async () => {
    await rpc.stop();
  });

  it("reads the chain's latest blockhash through getLatestBlockhash", async () => {
    await expect(sut().latestBlockhash(svmChain(rpc.url))).resolves.toMatchObject({
      blockhash: svm.vm.latestBlockhash(),
    });
    expect(rpc.calls).toEqual(['getLatestBlockhash']);
  });

  it('reuses a blockhash for cacheMs, shares one read between concurrent quotes, then reads a fresh one', async () => {
    const reader = sut();
    const first = svm.vm.latestBlockhash();
    const [a, b] = await Promise.all([
      reader.latestBlockhash(svmChain(rpc.url)),
      reader.latestBlockhash(svmChain(rpc.url)),
    ]);
    expect([a, b]).toMatchObject([{ blockhash: first }, { blockhash: first }]);
    svm.vm.expireBlockhash();
    now += 1999;
    await expect(reader.latestBlockhash(svmChain(rpc.url))).resolves.toMatchObject({ blockhash: first });
    now += 1;
    await expect(reader.latestBlockhash(svmChain(rpc.url))).resolves.toMatchObject({
      blockhash: svm.vm.latestBlockhash(),
    });
    expect(svm.vm.latestBlockhash()).not.toBe(first);
    expect(rpc.calls).toHaveLength(2);
  });

  it('says "not-configured", naming the variable, when the chain has no RPC (never a stand-in)', async () => {
    await expect(sut().latestBlockhash(svmChain(null))).resolves.toEqual({
      unavailable: 'not-configured',
      detail: expect.stringContaining('RPC_URL_792703809'),
    });
  });

  it('says "rpc-failed" when the RPC answers an error or does not answer within the timeout', async () => {
    rpc.mode = 'error';
    await expect(sut().latestBlockhash(svmChain(rpc.url))).resolves.toMatchObject({
      unavailable: 'rpc-failed',
    });
    rpc.mode = 'hang';
    const started = Date.now();
    await expect(sut(300).latestBlockhash(svmChain(rpc.url))).resolves.toMatchObject({
      unavailable: 'rpc-failed',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('remembers a failure for cacheMs, so a dead RPC costs one timeout per period', async () => {
    const reader = sut();
    rpc.mode = 'error';
    await reader.latestBlockhash(svmChain(rpc.url));
    rpc.mode = 'answer';
    await expect(reader.latestBlockhash(svmChain(rpc.url))).resolves.toMatchObject({
      unavailable: 'rpc-failed',
    });
    now += 2000;
    await expect(reader.latestBlockhash(svmChain(rpc.url))).resolves.toMatchObject({
      blockhash: svm.vm.latestBlockhash(),
    });
  });
});
