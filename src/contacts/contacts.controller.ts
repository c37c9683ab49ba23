import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors';
import { PageOf, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { ContactResponse, CreateContactDto, ListContactsQuery, UpdateContactDto } from './contact.dto';
import { ContactsService } from './contacts.service';

const ContactId = new PublicIdPipe('ct', 'Contact');

@ApiTags('Contacts')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @ApiOperation({ summary: 'List contacts, newest first; filter by text (q: name, phone or email) or by tag' })
  @ApiOkResponse({ type: PageOf(ContactResponse, 'ContactPage') })
  @ApiErrors(400)
  list(@Query() query: ListContactsQuery): Promise<Page<ContactResponse>> {
    return this.contacts.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one contact' })
  @ApiOkResponse({ type: ContactResponse })
  @ApiErrors(404)
  get(@Param('id', ContactId) id: string): Promise<ContactResponse> {
    return this.contacts.get(id);
  }

  @Post()
  @ApiOperation({ summary: 'Create a contact; the phone is normalised to E.164 and must be unique' })
  @ApiCreatedResponse({ type: ContactResponse })
  @ApiErrors(400, 409)
  create(@Body() dto: CreateContactDto): Promise<ContactResponse> {
    return this.contacts.create(dto);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change any subset of phone, name, email and tags (null clears name or email)' })
  @ApiOkResponse({ type: ContactResponse })
  @ApiErrors(400, 404, 409)
  update(@Param('id', ContactId) id: string, @Body() dto: UpdateContactDto): Promise<ContactResponse> {
    return this.contacts.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a contact; one that is the customer of a conversation cannot be deleted (409)' })
  @ApiNoContentResponse()
  @ApiErrors(404, 409)
  remove(@Param('id', ContactId) id: string): Promise<void> {
    return this.contacts.remove(id);
  }
}
