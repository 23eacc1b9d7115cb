import { arrayOf, integer, object, type Schemas, string, units } from '../../common/openapi/schema.js';

/** `protocol.v2.orderData` (src/quotes/domain/order/order-data.ts; docs/steps.md has its EIP-712 types). */
export const ORDER_SCHEMAS: Schemas = {
  OrderData: object({
    version: string(),
    solverChainId: string('Protocol chain name'),
    solver: string(),
    salt: string(),
    inputs: arrayOf(
      object({
        payment: object({ chainId: string(), currency: string(), amount: units(), weight: units() }),
        refunds: arrayOf(
          object({
            chainId: string(),
            recipient: string(),
            currency: string(),
            minimumAmount: units(),
            deadline: integer('Unix seconds'),
            extraData: string(),
          }),
        ),
      }),
    ),
    output: object({
      chainId: string(),
      payments: arrayOf(
        object({ recipient: string(), currency: string(), minimumAmount: units(), expectedAmount: units() }),
      ),
      calls: arrayOf(object({ to: string(), data: string(), value: units() })),
      deadline: integer('Unix seconds'),
      extraData: string(),
    }),
    fees: arrayOf(object({ chainId: string(), recipient: string(), currency: string(), amount: units() })),
  }),
};
