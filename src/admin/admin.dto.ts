import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { Account } from '../accounts/account.entity';
import type { ApiKey } from '../auth/api-key.entity';

const PLAN_NAMES = ['free', 'paid'];

export class CreateAccountDto {
  @ApiProperty({ example: 'dev@example.com' })
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;

  @ApiPropertyOptional({ enum: PLAN_NAMES, default: 'free' })
  @IsOptional()
  @IsIn(PLAN_NAMES, { message: 'plan must be free or paid' })
  plan?: string;
}

export class SetPlanDto {
  @ApiProperty({ enum: PLAN_NAMES })
  @IsIn(PLAN_NAMES, { message: 'plan must be free or paid' })
  plan!: string;
}

export class CreateKeyDto {
  @ApiPropertyOptional({ description: 'A label for the key.', example: 'ci' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string;
}

export class RevokeKeyDto {
  @ApiProperty({ description: 'The whole key, or its displayed prefix.', example: 'ff_live_ab12' })
  @IsString()
  @Matches(/\S/, { message: 'key must not be empty' })
  @MaxLength(200)
  key!: string;
}

export class AccountDto {
  @ApiProperty() email!: string;
  @ApiProperty({ enum: PLAN_NAMES }) plan!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;

  static of(account: Account): AccountDto {
    return {
      email: account.email,
      plan: account.plan,
      created_at: account.createdAt.toISOString(),
    };
  }
}

export class KeyDto {
  @ApiProperty({ description: 'Id for DELETE /admin/keys/{id}.' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The first characters of the key, for recognising it.' })
  prefix!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_used_at!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) revoked_at!: string | null;

  static of(key: ApiKey): KeyDto {
    return {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      created_at: key.createdAt.toISOString(),
      last_used_at: key.lastUsedAt?.toISOString() ?? null,
      revoked_at: key.revokedAt?.toISOString() ?? null,
    };
  }
}

export class CreatedKeyDto {
  @ApiProperty({
    description: 'The secret key. Shown in this response only; only its hash is stored.',
  })
  key!: string;
  @ApiProperty() prefix!: string;
  @ApiProperty() email!: string;
}

class DailyCallsDto {
  @ApiProperty({ format: 'date' }) day!: string;
  @ApiProperty() calls!: number;
}

export class UsageDto {
  @ApiProperty() email!: string;
  @ApiProperty({ enum: PLAN_NAMES }) plan!: string;
  @ApiProperty({ format: 'date', description: 'First day of the current month (UTC).' })
  month!: string;
  @ApiProperty({ description: 'Answered calls this month.' }) calls!: number;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Calls included per month; null: no cap.',
  })
  limit!: number | null;
  @ApiProperty({ type: [DailyCallsDto], description: 'Calls per day, last 30 days.' })
  daily!: DailyCallsDto[];
}
