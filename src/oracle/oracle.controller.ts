import { Body, Controller, Get, Headers, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Hex } from 'viem';
import { ApiError } from '../common/http/api-error.js';
import type { Attestation } from './attestation.js';
import {
  AttestDepositDto,
  AttestPaymentDto,
  AttestWithdrawalDto,
  AttestWithdrawalFlowDto,
} from './attestation.dto.js';
import { AttestationService, type PaymentRequest } from './attestation.service.js';
import { ORACLE_VM_TYPE_OF } from './chains/chain-attestor.js';
import { OpenOracleRoute, OracleAuthGuard } from './oracle-auth.guard.js';

const ERRORS_400 =
  'INVALID_INPUT, UNSUPPORTED_CHAIN, TRANSACTION_NOT_FOUND, TRANSACTION_NOT_FINAL ("Transaction is not final yet"), ' +
  'ATTESTATION_MISMATCH (what was found instead), AMBIGUOUS_ATTESTATION, VM_NOT_CONFIGURED, CHAIN_RPC_UNAVAILABLE';

/** The chains an oracle serves (`GET /chains/v1`), docs/oracle.md "GET /chains/v1". */
export interface OracleChainsResponse {
  readonly chains: readonly {
    readonly id: number;
    readonly name: string;
    readonly vmType: string;
    readonly depository: string;
    readonly solver: string;
    readonly callExecutor: string | null;
    readonly finality: { readonly blocks: number; readonly tag: 'finalized' | null };
    /** False when attestations on it cannot be made here (no backend for its VM family, or no RPC). */
    readonly attestable: boolean;
  }[];
}

/** The attestation oracle's routes (spec: oracle.md). Every route but `/lives/v1` needs a key when API_KEYS is set. */
@ApiTags('oracle')
@ApiSecurity('apiKey')
@UseGuards(OracleAuthGuard)
@Controller()
export class OracleController {
  constructor(private readonly attestations: AttestationService) {}

  @Get('lives/v1')
  @OpenOracleRoute()
  @ApiOperation({ summary: 'Oracle liveness: `{status: "ok"}`; no key needed' })
  lives(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('chains/v1')
  @ApiOperation({ summary: 'The chains this oracle loaded for its ENVIRONMENT' })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED' })
  chainsV1(): OracleChainsResponse {
    return {
      chains: this.attestations.chains.all().map((chain) => ({
        id: chain.id,
        name: chain.name,
        vmType: ORACLE_VM_TYPE_OF[chain.vmType],
        depository: chain.depository,
        solver: chain.solver,
        callExecutor: chain.callExecutor ?? null,
        finality: { blocks: chain.finality.blocks, tag: chain.finality.tag ?? null },
        attestable: chain.vmType === 'evm' && chain.rpcUrl !== null,
      })),
    };
  }

  @Post('attestations/depository-deposits/v1')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attest a deposit into the depository (native or ERC-20) in a final transaction' })
  @ApiOkResponse({ description: 'The attestation: `{kind, messageId, domain, message, signatures}`' })
  @ApiResponse({ status: 400, description: ERRORS_400 })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED' })
  deposit(@Body() body: AttestDepositDto, @Headers('x-api-key') key?: string): Promise<Attestation> {
    return this.attestations.attest(
      'depository-deposit',
      {
        chainId: body.chainId,
        transactionId: body.transactionId as Hex,
        ...(body.depositId ? { depositId: body.depositId as Hex } : {}),
        ...(body.logIndex !== undefined ? { logIndex: body.logIndex } : {}),
      },
      { requestPeerSignatures: body.requestPeerSignatures, callerKey: key },
    );
  }

  @Post('attestations/depository-withdrawals/v1')
  @HttpCode(200)
  @ApiOperation({
    summary: "Attest a withdrawal from the depository (its owner's `withdraw`) in a final transaction",
  })
  @ApiOkResponse({ description: 'The attestation: `{kind, messageId, domain, message, signatures}`' })
  @ApiResponse({ status: 400, description: ERRORS_400 })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED' })
  withdrawal(@Body() body: AttestWithdrawalDto, @Headers('x-api-key') key?: string): Promise<Attestation> {
    return this.attestations.attest(
      'depository-withdrawal',
      {
        chainId: body.chainId,
        transactionId: body.transactionId as Hex,
        ...(body.logIndex !== undefined ? { logIndex: body.logIndex } : {}),
      },
      { requestPeerSignatures: body.requestPeerSignatures, callerKey: key },
    );
  }

  @Post('attestations/solver-fills/v1')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Attest a solver fill: a final transaction from the chain's solver, tagged with the order id, paying the recipient at least the minimum",
  })
  @ApiOkResponse({ description: 'The attestation: `{kind, messageId, domain, message, signatures}`' })
  @ApiResponse({ status: 400, description: ERRORS_400 })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED' })
  fill(@Body() body: AttestPaymentDto, @Headers('x-api-key') key?: string): Promise<Attestation> {
    return this.attestations.attest('solver-fill', paymentOf(body), {
      requestPeerSignatures: body.requestPeerSignatures,
      callerKey: key,
    });
  }

  @Post('attestations/solver-refunds/v1')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Attest a solver refund (the same rules as a fill, paid to the refund recipient)',
  })
  @ApiOkResponse({ description: 'The attestation: `{kind, messageId, domain, message, signatures}`' })
  @ApiResponse({ status: 400, description: ERRORS_400 })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED' })
  refund(@Body() body: AttestPaymentDto, @Headers('x-api-key') key?: string): Promise<Attestation> {
    return this.attestations.attest('solver-refund', paymentOf(body), {
      requestPeerSignatures: body.requestPeerSignatures,
      callerKey: key,
    });
  }

  @Post('attestations/withdrawal-initiation/v1')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Withdrawal-address flow, initiation: refused here (WITHDRAWAL_FLOW_UNAVAILABLE)',
  })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT, WITHDRAWAL_FLOW_UNAVAILABLE' })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED' })
  withdrawalInitiation(@Body() body: AttestWithdrawalFlowDto): never {
    return refuseWithdrawalFlow(body);
  }

  @Post('attestations/withdrawal-initiated/v1')
  @HttpCode(200)
  @ApiOperation({ summary: 'Withdrawal-address flow, initiated: refused here (WITHDRAWAL_FLOW_UNAVAILABLE)' })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT, WITHDRAWAL_FLOW_UNAVAILABLE' })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED' })
  withdrawalInitiated(@Body() body: AttestWithdrawalFlowDto): never {
    return refuseWithdrawalFlow(body);
  }
}

function paymentOf(body: AttestPaymentDto): PaymentRequest {
  return {
    chainId: body.chainId,
    transactionId: body.transactionId as Hex,
    orderId: body.orderId as Hex,
    recipient: body.recipient as Hex,
    currency: body.currency as Hex,
    minimumAmount: body.minimumAmount,
  };
}

function refuseWithdrawalFlow(body: AttestWithdrawalFlowDto): never {
  throw new ApiError(
    'WITHDRAWAL_FLOW_UNAVAILABLE',
    'The withdrawal-address flow needs a hub ledger and a depository that executes oracle-signed withdrawals; ' +
      'Ferry deploys neither yet (docs/oracle.md). Depository withdrawals are attested by /attestations/depository-withdrawals/v1.',
    { chainId: body.chainId },
  );
}
