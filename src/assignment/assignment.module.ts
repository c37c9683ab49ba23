import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { InboxesModule } from '../inboxes/inboxes.module';
import { UsersModule } from '../users/users.module';
import { AssignmentController } from './assignment.controller';
import { AssignmentRepository } from './assignment.repository';
import { AssignmentService } from './assignment.service';

/** The router: conversations of the inboxes that assign by themselves reach an available agent. */
@Module({
  imports: [ConversationsModule, InboxesModule, UsersModule],
  controllers: [AssignmentController],
  providers: [AssignmentRepository, AssignmentService],
})
export class AssignmentModule {}
