import { Module } from '@nestjs/common';
import { LabelRepository } from './label.repository';
import { LabelsController } from './labels.controller';
import { LabelsService } from './labels.service';

/** The catalogue of labels; the conversations module puts them on conversations through LabelsService.findByNames. */
@Module({
  controllers: [LabelsController],
  providers: [LabelRepository, LabelsService],
  exports: [LabelsService],
})
export class LabelsModule {}
