import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { Roles } from '../users/roles.decorator';
import { CreateLabelDto, LabelResponse, UpdateLabelDto } from './label.dto';
import { LabelsService } from './labels.service';

const LabelId = new PublicIdPipe('lbl', 'Label');

@ApiTags('Labels')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/labels')
export class LabelsController {
  constructor(private readonly labels: LabelsService) {}

  @Get()
  @ApiOperation({ summary: 'List the labels, oldest first', description: 'Every user may read the catalogue; admins manage it.' })
  @ApiOkResponse({ type: PageOf(LabelResponse, 'LabelPage') })
  @ApiErrors(400)
  list(@Query() query: PageQuery): Promise<Page<LabelResponse>> {
    return this.labels.list(query);
  }

  @Post()
  @Roles('admin')
  @ApiOperation({
    summary: 'Create a label (admin)',
    description: 'The name is unique case-insensitively (409 otherwise); color defaults to #6b7280.',
  })
  @ApiCreatedResponse({ type: LabelResponse })
  @ApiErrors(400, 409)
  create(@Body() dto: CreateLabelDto): Promise<LabelResponse> {
    return this.labels.create(dto);
  }

  @Patch(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Rename or recolor a label (admin)',
    description: 'A new name shows on every conversation with the label at once.',
  })
  @ApiOkResponse({ type: LabelResponse })
  @ApiErrors(400, 404, 409)
  update(@Param('id', LabelId) id: string, @Body() dto: UpdateLabelDto): Promise<LabelResponse> {
    return this.labels.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a label, removing it from every conversation (admin)' })
  @ApiNoContentResponse()
  @ApiErrors(404)
  remove(@Param('id', LabelId) id: string): Promise<void> {
    return this.labels.remove(id);
  }
}
