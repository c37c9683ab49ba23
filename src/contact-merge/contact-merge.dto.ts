import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';

export class MergeContactDto {
  @ApiProperty({
    example: 'ct_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d',
    description: 'The contact merged into this one, then deleted; its conversation and messages move here',
  })
  @IsString()
  from!: string;
}
