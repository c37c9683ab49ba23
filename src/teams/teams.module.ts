import { Module } from '@nestjs/common';
import { TeamRepository } from './team.repository';
import { TeamsController } from './teams.controller';
import { TeamsService } from './teams.service';

/** The teams; conversations are handed to them (`team_id`) and inboxes assign through them. */
@Module({
  controllers: [TeamsController],
  providers: [TeamRepository, TeamsService],
  exports: [TeamsService],
})
export class TeamsModule {}
