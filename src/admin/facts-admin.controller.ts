import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { FactDto } from '../facts/fact.dto';
import { IngestService } from '../facts/ingest.service';
import { MAX_PUSH_FACTS } from '../facts/fact-batch';
import { RetractionsService } from '../facts/retractions.service';
import { actorOf, AdminRequest } from './admin-credential';
import { AdminGuard } from './admin.guard';
import { Audited, AuditInterceptor } from './audit.interceptor';
import {
  AdminFactDto,
  FindFactsQueryDto,
  PushQueryDto,
  PushSummaryDto,
  RetractDto,
} from './facts-admin.dto';

const FACT_LINE = JSON.stringify({
  question: 'Who is the head coach of Calcio Catania?',
  answer: 'Domenico Toscano',
  true_by: '2024-11-05',
  sources: ['https://en.wikipedia.org/wiki/Catania_FC'],
});

const NOT_FOUND = { status: 404, description: 'No fact has this id (problem+json).' };
const AUTH = { status: 401, description: 'Missing or wrong admin token.' };

/** Facts while the service runs: push, find, show, retract and restore. */
@ApiTags('admin')
@ApiExtraModels(FactDto)
@ApiBearerAuth()
@ApiResponse(AUTH)
@ApiResponse({ status: 403, description: 'Admin endpoints disabled (no FRESHFACTS_ADMIN_TOKEN).' })
@Controller('admin/facts')
@UseGuards(AdminGuard)
@UseInterceptors(AuditInterceptor)
export class FactsAdminController {
  constructor(
    private readonly ingest: IngestService,
    private readonly retractions: RetractionsService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Push facts',
    description:
      `JSON Lines (application/x-ndjson) or a JSON array of facts, at most ${MAX_PUSH_FACTS} ` +
      'facts and 1 MiB, stored in one transaction through the same validation, ' +
      'de-duplication and embedding as `freshfacts ingest`. Bad lines are listed by number ' +
      'and skipped; retracted facts are skipped and counted.',
  })
  @ApiConsumes('application/x-ndjson', 'application/json')
  @ApiBody({
    required: true,
    description:
      'JSON Lines: one fact object a line, e.g. ' +
      FACT_LINE +
      '; or a JSON array of such objects. Send JSON Lines with `curl --data-binary`.',
    schema: { type: 'array', items: { $ref: getSchemaPath(FactDto) } },
  })
  @ApiOkResponse({ type: PushSummaryDto })
  @ApiResponse({ status: 413, description: `Over ${MAX_PUSH_FACTS} facts or 1 MiB.` })
  @ApiResponse({ status: 422, description: 'No fact in the body, or strict and a bad line.' })
  @Audited<PushSummaryDto>('facts.push', (_request, summary) => ({
    target: 'facts',
    detail: {
      added: summary.added,
      merged: summary.merged,
      retracted: summary.retracted,
      rejected: summary.rejected.length,
    },
  }))
  async push(@Req() request: AdminRequest, @Query() query: PushQueryDto): Promise<PushSummaryDto> {
    const text = typeof request.body === 'string' ? request.body : '';
    const origin = { origin: actorOf(request), kind: 'push' as const };
    const jsonLines = /ndjson|jsonl|jsonlines/i.test(request.headers['content-type'] ?? '');
    return PushSummaryDto.of(
      await this.ingest.ingestBatch(text, origin, { strict: query.strict === 'true', jsonLines }),
    );
  }

  @Get()
  @ApiOperation({ summary: 'Find facts by words of their question, live and retracted' })
  @ApiOkResponse({ type: [AdminFactDto] })
  @ApiResponse({ status: 422, description: 'A bad query parameter.' })
  async find(@Query() query: FindFactsQueryDto): Promise<AdminFactDto[]> {
    const facts = await this.retractions.find(query.q.trim(), query.limit ?? 20, query.state);
    return facts.map((fact) => AdminFactDto.of(fact));
  }

  @Get(':id')
  @ApiOperation({ summary: 'A fact with its origins and any retraction' })
  @ApiOkResponse({ type: AdminFactDto })
  @ApiResponse(NOT_FOUND)
  async show(@Param('id') id: string): Promise<AdminFactDto> {
    return AdminFactDto.of(await this.retractions.show(id));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Retract a fact',
    description:
      'It is no longer returned by search, research or MCP, and ingesting it again does ' +
      'not bring it back; POST …/restore does.',
  })
  @ApiOkResponse({ type: AdminFactDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse({ status: 409, description: 'Already retracted.' })
  @ApiResponse({ status: 422, description: 'No reason given.' })
  @Audited<AdminFactDto>('fact.retract', (_request, fact) => ({
    target: fact.id,
    detail: { reason: fact.retraction?.reason, question: fact.question },
  }))
  async retract(
    @Req() request: AdminRequest,
    @Param('id') id: string,
    @Body() body: RetractDto,
  ): Promise<AdminFactDto> {
    return AdminFactDto.of(
      await this.retractions.retract(id, body.reason.trim(), actorOf(request)),
    );
  }

  @Post(':id/restore')
  @HttpCode(200)
  @ApiOperation({ summary: 'Restore a retracted fact, under the same id' })
  @ApiOkResponse({ type: AdminFactDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse({ status: 409, description: 'The fact is not retracted.' })
  @Audited<AdminFactDto>('fact.restore', (_request, fact) => ({
    target: fact.id,
    detail: { question: fact.question },
  }))
  async restore(@Param('id') id: string): Promise<AdminFactDto> {
    return AdminFactDto.of(await this.retractions.restore(id));
  }
}
