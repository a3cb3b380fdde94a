import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { PresetReport } from '../sources/sources.service';
import { Source, SOURCE_KINDS } from '../sources/sources.repository';

export class AddSourceDto {
  @ApiProperty({
    description:
      'An http(s) URL; for wikidata also a local dump (file: URL or absolute path); for ' +
      'sparql the path of a query file on the server.',
    example: 'https://www.theguardian.com/world/rss',
  })
  @IsString()
  @Matches(/\S/, { message: 'url must not be empty' })
  @MaxLength(2000)
  url!: string;

  // Checked by the sources service, which words its refusal as the command line does.
  @ApiProperty({ enum: SOURCE_KINDS })
  @IsString()
  @MaxLength(20)
  kind!: string;

  @ApiPropertyOptional({ description: 'How often: 15m, 6h, 1d (1m to 30d).', default: '1h' })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  every?: string;
}

export class AddPresetDto {
  @ApiProperty({ enum: ['wikidata', 'news'] })
  @IsString()
  @MaxLength(50)
  name!: string;
}

export class SourceDto {
  @ApiProperty() id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ enum: SOURCE_KINDS }) kind!: string;
  @ApiProperty({ nullable: true, type: String, description: 'A sparql source’s query.' })
  query!: string | null;
  @ApiProperty() every_seconds!: number;
  @ApiProperty({ format: 'date-time' }) next_run_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_run_at!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_ok_at!: string | null;
  @ApiProperty({ nullable: true, type: String, enum: ['ok', 'not-modified', 'failed'] })
  last_status!: string | null;
  @ApiProperty({ nullable: true, type: String }) last_error!: string | null;
  @ApiProperty({ description: 'Failed runs in a row.' }) failures!: number;
  @ApiProperty() documents!: number;
  @ApiProperty() facts_added!: number;
  @ApiProperty() facts_rejected!: number;

  static of(source: Source): SourceDto {
    const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);
    return {
      id: source.id,
      url: source.url,
      kind: source.kind,
      query: source.query,
      every_seconds: source.every_seconds,
      next_run_at: new Date(source.next_run_at).toISOString(),
      last_run_at: iso(source.last_run_at),
      last_ok_at: iso(source.last_ok_at),
      last_status: source.last_status,
      last_error: source.last_error,
      failures: source.failures,
      documents: source.documents,
      facts_added: source.facts_added,
      facts_rejected: source.facts_rejected,
    };
  }
}

export class PresetReportDto {
  @ApiProperty({ type: [SourceDto] }) added!: SourceDto[];
  @ApiProperty({ type: [String], description: 'Sources of the preset already there.' })
  existing!: string[];

  static of(report: PresetReport): PresetReportDto {
    return { added: report.added.map((source) => SourceDto.of(source)), existing: report.existing };
  }
}
