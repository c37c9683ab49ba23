import { Module } from '@nestjs/common';
import { ContactsModule } from '../contacts/contacts.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { InboxesModule } from '../inboxes/inboxes.module';
import { LabelsModule } from '../labels/labels.module';
import { TeamsModule } from '../teams/teams.module';
import { TemplatesModule } from '../templates/templates.module';
import { UsersModule } from '../users/users.module';
import { ActionsService } from './actions.service';
import { AutoRepliesService } from './auto-replies.service';
import { AutoResolve } from './auto-resolve';
import { CsatService } from './csat.service';
import { MacroRepository } from './macro.repository';
import { MacrosController } from './macros.controller';
import { MacrosService } from './macros.service';
import { RuleRepository } from './rule.repository';
import { RuleRunner } from './rule-runner.processor';
import { RulesController } from './rules.controller';
import { RulesService } from './rules.service';

/**
 * What the inbox does by itself and what agents automate: greeting and away messages, closing
 * conversations that went quiet, the satisfaction survey, automation rules and macros.
 */
@Module({
  imports: [ConversationsModule, InboxesModule, ContactsModule, TeamsModule, UsersModule, LabelsModule, TemplatesModule],
  controllers: [RulesController, MacrosController],
  providers: [
    AutoRepliesService,
    AutoResolve,
    CsatService,
    ActionsService,
    RuleRepository,
    RulesService,
    RuleRunner,
    MacroRepository,
    MacrosService,
  ],
  exports: [AutoRepliesService, CsatService],
})
export class AutomationModule {}
