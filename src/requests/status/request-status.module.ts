import { Module } from '@nestjs/common';
import { RequestStatusController } from './request-status.controller.js';
import { RequestStatusService } from './request-status.service.js';

/** `GET /intents/status/v3` and `GET /intents/status`, over the `request-status` read model. */
@Module({ controllers: [RequestStatusController], providers: [RequestStatusService] })
export class RequestStatusModule {}
