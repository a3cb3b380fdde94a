import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { AdminGuard } from './admin.guard';
import { AdminEvent, AuditRepository } from './audit.repository';

export class EventsQueryDto {
  @ApiPropertyOptional({ description: 'Only events before this id: `next_before` of a page.' })
  @IsOptional()
  @Matches(/^[1-9]\d{0,17}$/, { message: 'before must be an event id' })
  before?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(500)
  limit?: number;
}

class EventDto {
  @ApiProperty() id!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty({ example: 'fact.retract' }) action!: string;
  @ApiProperty({ description: 'An email, key, fact or source id, a source URL.' })
  target!: string;
  @ApiProperty({ description: 'The admin credential id (admin:<12 hex of its SHA-256>) or cli.' })
  actor!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) detail!: Record<string, unknown>;

  static of(event: AdminEvent): EventDto {
    return { ...event, at: new Date(event.at).toISOString() };
  }
}

export class EventsPageDto {
  @ApiProperty({ type: [EventDto], description: 'Newest first.' }) events!: EventDto[];
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Pass as `before` for the next page; null on the last.',
  })
  next_before!: string | null;
}

/** The audit trail of admin writes. */
@ApiTags('admin')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing or wrong admin token.' })
@ApiResponse({ status: 403, description: 'Admin endpoints disabled (no FRESHFACTS_ADMIN_TOKEN).' })
@Controller('admin/events')
@UseGuards(AdminGuard)
export class EventsController {
  constructor(private readonly audit: AuditRepository) {}

  @Get()
  @ApiOperation({ summary: 'Admin writes, newest first, a page at a time' })
  @ApiOkResponse({ type: EventsPageDto })
  @ApiResponse({ status: 422, description: 'A bad query parameter.' })
  async page(@Query() query: EventsQueryDto): Promise<EventsPageDto> {
    const limit = query.limit ?? 50;
    const events = (await this.audit.page(limit + 1, query.before)).map((e) => EventDto.of(e));
    const more = events.length > limit;
    return {
      events: events.slice(0, limit),
      next_before: more ? events[limit - 1].id : null,
    };
  }
}
