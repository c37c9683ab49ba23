import { Module } from '@nestjs/common';
import { ContactExportService } from './contact-export.service';
import { ContactImportService } from './contact-import.service';
import { ContactRepository } from './contact.repository';
import { ContactsController } from './contacts.controller';
import { ContactsService } from './contacts.service';

@Module({
  controllers: [ContactsController],
  providers: [ContactRepository, ContactsService, ContactImportService, ContactExportService],
  exports: [ContactsService],
})
export class ContactsModule {}
