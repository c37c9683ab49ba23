import { ApiProperty } from '@nestjs/swagger';
import { toPublicId } from '../common/ids';
import { AVAILABILITIES, type Availability, USER_ROLES, type UserRole } from '../users/user.entity';
import type { AgentLoadRow } from './assignment.repository';

/** One user's availability and load. */
export class AgentLoadResponse {
  @ApiProperty({ example: 'user_01a2047c8e2078c99d14947d2651598e' })
  user_id!: string;

  @ApiProperty({ example: 'Ana Silva' })
  name!: string;

  @ApiProperty({ enum: USER_ROLES })
  role!: UserRole;

  @ApiProperty({ enum: AVAILABILITIES })
  availability!: Availability;

  @ApiProperty({ example: 4, description: 'Their open conversations, in every inbox' })
  open_conversations!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 6,
    description:
      'The smallest capacity among the inboxes that assign by themselves where they are a member: the router gives them no more beyond it. null: no limit',
  })
  capacity!: number | null;

  @ApiProperty({ type: [String], example: ['team_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d'] })
  team_ids!: string[];

  static of(row: AgentLoadRow): AgentLoadResponse {
    return {
      user_id: toPublicId('user', row.id),
      name: row.name,
      role: row.role,
      availability: row.availability,
      open_conversations: row.open,
      capacity: row.capacity,
      team_ids: row.team_ids.map((id) => toPublicId('team', id)),
    };
  }
}

export class AgentLoadsResponse {
  @ApiProperty({ type: [AgentLoadResponse] })
  data!: AgentLoadResponse[];
}
