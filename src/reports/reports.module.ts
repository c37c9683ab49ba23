import { Module } from '@nestjs/common';
import { ReportRepository } from './report.repository';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

/** Figures over a period (what the channel charged, so far), read from the other modules' tables. */
@Module({
  controllers: [ReportsController],
  providers: [ReportRepository, ReportsService],
})
export class ReportsModule {}
