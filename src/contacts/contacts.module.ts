import { Module } from '@nestjs/common';
import { ContactRepository } from './contact.repository';
import { ContactsController } from './contacts.controller';
import { ContactsService } from './contacts.service';

@Module({
  controllers: [ContactsController],
  providers: [ContactRepository, ContactsService],
  exports: [ContactsService],
})
export class ContactsModule {}
