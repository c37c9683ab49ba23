import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsString, Length } from 'class-validator';
import { toPublicId } from '../common/ids';
import { IsOmittable } from '../common/omittable';
import { trimmed } from '../common/transforms';
import { ConversationResponse } from '../conversations/conversation.dto';
import { MACRO_VISIBILITIES, type MacroRow, type MacroVisibility } from './macro.entity';
import { ActionOutcomeResponse, IsActions, RuleActionDoc } from './rule.dto';
import type { RuleAction } from './rule-logic';

export class CreateMacroDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Refund: ask for the order number' })
  @Transform(trimmed)
  @IsString()
  @Length(1, 100)
  name!: string;

  @ApiProperty({ enum: MACRO_VISIBILITIES, description: "`personal`: the caller's own; `team`: everyone's (admins only)" })
  @IsIn(MACRO_VISIBILITIES, { message: `visibility must be one of ${MACRO_VISIBILITIES.join(', ')}` })
  visibility!: MacroVisibility;

  @ApiProperty({ type: [RuleActionDoc], description: "The automation rules' actions, done in order; 1 to 20" })
  @IsActions()
  actions!: RuleAction[];
}

export class UpdateMacroDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOmittable()
  @Transform(trimmed)
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({ enum: MACRO_VISIBILITIES, description: 'Only admins share a macro with the team or take it back' })
  @IsOmittable()
  @IsIn(MACRO_VISIBILITIES, { message: `visibility must be one of ${MACRO_VISIBILITIES.join(', ')}` })
  visibility?: MacroVisibility;

  @ApiPropertyOptional({ type: [RuleActionDoc], description: 'Replaced whole' })
  @IsOmittable()
  @IsActions()
  actions?: RuleAction[];
}

export class MacroResponse {
  @ApiProperty({ example: 'mac_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: MACRO_VISIBILITIES })
  visibility!: MacroVisibility;

  @ApiProperty({ type: String, nullable: true, example: 'user_01a2047c8e2078c99d14947d2651598e', description: 'Null for a team macro' })
  owner_id!: string | null;

  @ApiProperty({ type: [RuleActionDoc] })
  actions!: RuleActionDoc[];

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(row: MacroRow): MacroResponse {
    return {
      id: toPublicId('mac', row.id),
      name: row.name,
      visibility: row.visibility,
      owner_id: row.owner_id && toPublicId('user', row.owner_id),
      actions: row.actions,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}

export class MacroRunResponse {
  @ApiProperty({ type: ConversationResponse, description: 'The conversation as the macro left it' })
  conversation!: ConversationResponse;

  @ApiProperty({ type: [ActionOutcomeResponse], description: 'What each action did, in order' })
  actions!: ActionOutcomeResponse[];
}
