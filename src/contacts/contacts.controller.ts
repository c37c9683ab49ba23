import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, StreamableFile } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser } from '../users/current-user.decorator';
import type { UserRow } from '../users/user.entity';
import type { Readable } from 'node:stream';
import { ApiErrors } from '../common/api-errors';
import { CsvBody, TakesCsvBody } from '../common/csv-body';
import { PageOf, type Page } from '../common/pagination';
import { PublicIdPipe } from '../common/public-id.pipe';
import { ContactExportService } from './contact-export.service';
import { ContactImportService, IMPORT_MAX_BYTES, LISTED_REFUSALS, type ImportResult } from './contact-import.service';
import { ContactFilterQuery, ContactResponse, CreateContactDto, ImportResponse, ListContactsQuery, UpdateContactDto } from './contact.dto';
import { ContactsService } from './contacts.service';

const ContactId = new PublicIdPipe('ct', 'Contact');

@ApiTags('Contacts')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('v1/contacts')
export class ContactsController {
  constructor(
    private readonly contacts: ContactsService,
    private readonly imports: ContactImportService,
    private readonly exports: ContactExportService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List contacts, newest first; filter by text (q: name, phone or email) or by tag' })
  @ApiOkResponse({ type: PageOf(ContactResponse, 'ContactPage') })
  @ApiErrors(400, 404)
  list(@Query() query: ListContactsQuery, @CurrentUser() caller: UserRow): Promise<Page<ContactResponse>> {
    return this.contacts.list(query, caller);
  }

  @Get('export')
  @ApiOperation({
    summary: 'Export contacts as CSV, streamed; the list filters (q, tag) apply',
    description:
      'Columns phone,name,email,tags,wa_user_id (tags joined with ;) then one column per attribute key, in code-point order; newest contact first. ' +
      'A text cell a spreadsheet would take for a formula or a number starts with an apostrophe, which the import removes: importing the file gives back the same contacts.',
  })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiErrors(400, 404)
  async export(@Query() query: ContactFilterQuery, @CurrentUser() caller: UserRow): Promise<StreamableFile> {
    return new StreamableFile(await this.exports.export(query, caller), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="contacts.csv"',
    });
  }

  @Post('import')
  @HttpCode(200)
  @TakesCsvBody(IMPORT_MAX_BYTES)
  @ApiOperation({
    summary: 'Import contacts from CSV: each line creates or updates the contact with its phone (or, without one, its wa_user_id)',
    description:
      `Content-Type text/csv, at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB, read as it arrives. The header row names the columns: phone, name, email, tags ` +
      '(separated by ;), wa_user_id (a phone or a wa_user_id column is required), and any other column is an attribute. A file never changes the phone of a contact found by its wa_user_id, only adds a missing one. A line writes the columns the file has (an empty cell clears the field or removes the attribute) and leaves the others. ' +
      'A line that cannot be imported (a bad phone or e-mail, too many attributes, malformed CSV) is listed in refused with its line number and the rest is imported; ' +
      `a phone that appears twice is written twice, the later line last. Lines are written in batches of 1,000, each its own transaction. At most ${LISTED_REFUSALS} refusals are listed.`,
  })
  @ApiConsumes('text/csv')
  @ApiBody({ schema: { type: 'string', example: 'phone,name,email,tags,plan\n+16315551234,Maria Lopez,maria@example.com,vip;es,pro\n' } })
  @ApiOkResponse({ type: ImportResponse })
  @ApiErrors(400, 413, 415)
  import(@CsvBody() body: Readable): Promise<ImportResult> {
    return this.imports.import(body);
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
  @ApiOperation({
    summary:
      'Change any subset of phone, name, email, tags, attributes and (admins) opted_out (null clears name or email; tags and attributes are replaced whole)',
  })
  @ApiOkResponse({ type: ContactResponse })
  @ApiErrors(400, 403, 404, 409)
  update(@Param('id', ContactId) id: string, @Body() dto: UpdateContactDto, @CurrentUser() caller: UserRow): Promise<ContactResponse> {
    return this.contacts.update(id, dto, caller);
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
