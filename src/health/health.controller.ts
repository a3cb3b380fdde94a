import { Controller, Get, Module } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';

@ApiTags('operations')
@Controller('healthz')
export class HealthController {
  /** Answers while the process is alive and serving HTTP. */
  @Get()
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  alive(): { status: string } {
    return { status: 'ok' };
  }
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
