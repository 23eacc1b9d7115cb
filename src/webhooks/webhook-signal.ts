import { Injectable } from '@nestjs/common';
import { AppendSignal } from '../event-store/catch-up-subscription.js';

/** Wakes this process's dispatchers when the outbox writer has queued deliveries (others find them by polling). */
@Injectable()
export class WebhookSignal extends AppendSignal {}
