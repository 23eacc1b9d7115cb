import { Module } from '@nestjs/common';
import { AdminTokenGuard } from '../webhooks/admin/admin-token.guard.js';
import { RevenueShareAdminController } from './revenue-share-admin.controller.js';

/** Revenue share's operator routes (its accrual runs in the app-fee accrual consumer). */
@Module({ controllers: [RevenueShareAdminController], providers: [AdminTokenGuard] })
export class RevenueShareModule {}
