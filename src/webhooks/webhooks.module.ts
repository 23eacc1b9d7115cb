import { Module } from '@nestjs/common';
import { AdminTokenGuard } from './admin/admin-token.guard.js';
import { WebhooksAdminController } from './admin/webhooks-admin.controller.js';
import { WebhookDeliveriesService } from './delivery/webhook-deliveries.service.js';
import { WebhookDispatcher } from './delivery/webhook-dispatcher.js';
import { WebhookOutboxWriter } from './outbox/webhook-outbox-writer.js';
import { WebhookSignal } from './webhook-signal.js';

/** request.status.updated webhooks: the outbox writer, the dispatchers, the delivery log, the admin routes. */
@Module({
  controllers: [WebhooksAdminController],
  providers: [
    WebhookSignal,
    WebhookOutboxWriter,
    WebhookDispatcher,
    WebhookDeliveriesService,
    AdminTokenGuard,
  ],
  exports: [WebhookDeliveriesService, WebhookDispatcher, WebhookOutboxWriter, AdminTokenGuard],
})
export class WebhooksModule {}
