import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { SourcesService } from '../sources/sources.service';
import { SourcesWorker } from '../sources/sources.worker';
import { AdminGuard } from './admin.guard';
import { Audited, AuditInterceptor } from './audit.interceptor';
import { AddPresetDto, AddSourceDto, PresetReportDto, SourceDto } from './sources-admin.dto';

const NOT_FOUND = { status: 404, description: 'No source has this id or URL.' };

/** Upstream sources while the service runs: the same rules as `freshfacts sources`. */
@ApiTags('admin')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing or wrong admin token.' })
@ApiResponse({ status: 403, description: 'Admin endpoints disabled (no FRESHFACTS_ADMIN_TOKEN).' })
@Controller('admin/sources')
@UseGuards(AdminGuard)
@UseInterceptors(AuditInterceptor)
export class SourcesAdminController {
  constructor(
    private readonly sources: SourcesService,
    private readonly worker: SourcesWorker,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Sources with their last run, error and counts' })
  @ApiOkResponse({ type: [SourceDto] })
  async list(): Promise<SourceDto[]> {
    return (await this.sources.list()).map((source) => SourceDto.of(source));
  }

  @Post()
  @ApiOperation({ summary: 'Register a source' })
  @ApiCreatedResponse({ type: SourceDto })
  @ApiResponse({ status: 409, description: 'Already a source.' })
  @ApiResponse({
    status: 422,
    description: 'Not an http(s) URL or allowed file, bad kind or interval.',
  })
  @Audited<SourceDto>('source.add', (_request, source) => ({
    target: source.url,
    detail: { id: source.id, kind: source.kind, every_seconds: source.every_seconds },
  }))
  async add(@Body() body: AddSourceDto): Promise<SourceDto> {
    return SourceDto.of(await this.sources.add(body.url, body.kind, body.every));
  }

  @Post('presets')
  @ApiOperation({ summary: 'Register every source of a shipped preset' })
  @ApiCreatedResponse({ type: PresetReportDto })
  @ApiResponse({ status: 422, description: 'Unknown preset.' })
  @Audited<PresetReportDto>('source.add-preset', (request, report) => ({
    target: String((request.body as { name?: unknown }).name),
    detail: { added: report.added.map((source) => source.url), existing: report.existing.length },
  }))
  async addPreset(@Body() body: AddPresetDto): Promise<PresetReportDto> {
    return PresetReportDto.of(await this.sources.addPreset(body.name));
  }

  @Delete(':ref')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove a source, by id or (URL-encoded) URL; its facts stay' })
  @ApiOkResponse({ type: SourceDto })
  @ApiResponse(NOT_FOUND)
  @Audited<SourceDto>('source.remove', (_request, source) => ({
    target: source.url,
    detail: { id: source.id },
  }))
  async remove(@Param('ref') ref: string): Promise<SourceDto> {
    return SourceDto.of(await this.sources.remove(ref));
  }

  @Post(':ref/run')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Run a source now',
    description:
      'Makes it due and starts a pass of the worker in the background; the answer does not ' +
      'wait for the fetch. GET /admin/sources shows the outcome.',
  })
  @ApiAcceptedResponse({ type: SourceDto })
  @ApiResponse(NOT_FOUND)
  @Audited<SourceDto>('source.run', (_request, source) => ({
    target: source.url,
    detail: { id: source.id },
  }))
  async run(@Param('ref') ref: string): Promise<SourceDto> {
    const source = await this.sources.makeDue(ref);
    this.worker.kick();
    return SourceDto.of(source);
  }
}
