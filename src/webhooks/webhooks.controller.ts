import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Roles } from '../users/roles.decorator';
import { ApiErrors } from '../common/api-errors';
import { PageOf, PageQuery, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { CreateWebhookDto, DeliveryResponse, ListDeliveriesQuery, UpdateWebhookDto, WebhookResponse } from './webhook.dto';
import { WebhooksService } from './webhooks.service';

const WebhookId = new PublicIdPipe('wh', 'Webhook');
const DeliveryId = new PublicIdPipe('dlv', 'Delivery');

@ApiTags('Webhooks')
@ApiBearerAuth()
@Roles('admin')
@ApiErrors(401, 403, 429)
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    summary: 'Register a receiver (admin)',
    description:
      'Deliveries are signed with the Standard Webhooks scheme using the secret; see the README for verifying them. The URL must be https and public.',
  })
  @ApiCreatedResponse({ type: WebhookResponse })
  @ApiErrors(400)
  create(@Body() dto: CreateWebhookDto): Promise<WebhookResponse> {
    return this.webhooks.create(dto);
  }

  @Get()
  @ApiOperation({ summary: 'List registrations, newest first (admin)' })
  @ApiOkResponse({ type: PageOf(WebhookResponse, 'WebhookPage') })
  @ApiErrors(400)
  list(@Query() query: PageQuery): Promise<Page<WebhookResponse>> {
    return this.webhooks.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one registration (admin)' })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiErrors(404)
  get(@Param('id', WebhookId) id: string): Promise<WebhookResponse> {
    return this.webhooks.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the URL, events or secret, or enable/disable (admin)' })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiErrors(400, 404)
  update(@Param('id', WebhookId) id: string, @Body() dto: UpdateWebhookDto): Promise<WebhookResponse> {
    return this.webhooks.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a registration and its delivery log (admin)' })
  @ApiNoContentResponse()
  @ApiErrors(404)
  remove(@Param('id', WebhookId) id: string): Promise<void> {
    return this.webhooks.remove(id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The delivery log of a registration, newest first (admin)' })
  @ApiOkResponse({ type: PageOf(DeliveryResponse, 'DeliveryPage') })
  @ApiErrors(400, 404)
  deliveries(@Param('id', WebhookId) id: string, @Query() query: ListDeliveriesQuery): Promise<Page<DeliveryResponse>> {
    return this.webhooks.listDeliveries(id, query);
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @ApiOperation({ summary: 'Attempt a delivery once more, now, whatever its state (admin)' })
  @ApiAcceptedResponse({ type: DeliveryResponse })
  @ApiErrors(404)
  retry(@Param('id', WebhookId) id: string, @Param('delivery_id', DeliveryId) deliveryId: string): Promise<DeliveryResponse> {
    return this.webhooks.retryDelivery(id, deliveryId);
  }
}
