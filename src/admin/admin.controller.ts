import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiKeysService } from '../auth/api-keys.service';
import { AccountsService } from '../accounts/accounts.service';
import { UsageService } from '../billing/usage.service';
import { AdminGuard } from './admin.guard';
import { Audited, AuditInterceptor } from './audit.interceptor';
import {
  AccountDto,
  CreateAccountDto,
  CreatedKeyDto,
  CreateKeyDto,
  KeyDto,
  RevokeKeyDto,
  SetPlanDto,
  UsageDto,
} from './admin.dto';

/** Accounts, plans, keys and usage for operators of a self-hosted freshfacts. */
@ApiTags('admin')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing or wrong admin token.' })
@ApiResponse({ status: 403, description: 'Admin endpoints disabled (no FRESHFACTS_ADMIN_TOKEN).' })
@Controller('admin')
@UseGuards(AdminGuard)
@UseInterceptors(AuditInterceptor)
export class AdminController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly keys: ApiKeysService,
    private readonly accountUsage: UsageService,
  ) {}

  @Get('accounts')
  @ApiOkResponse({ type: [AccountDto] })
  async listAccounts(): Promise<AccountDto[]> {
    return (await this.accounts.list()).map((account) => AccountDto.of(account));
  }

  @Post('accounts')
  @ApiCreatedResponse({ type: AccountDto })
  @ApiResponse({ status: 409, description: 'An account with this email exists.' })
  @ApiResponse({ status: 422, description: 'Not an email address, or an unknown plan.' })
  @Audited<AccountDto>('account.create', (_request, account) => ({
    target: account.email,
    detail: { plan: account.plan },
  }))
  async createAccount(@Body() body: CreateAccountDto): Promise<AccountDto> {
    return AccountDto.of(await this.accounts.create(body.email, body.plan));
  }

  @Put('accounts/:email/plan')
  @ApiOkResponse({ type: AccountDto })
  @ApiResponse({ status: 404, description: 'No such account.' })
  @ApiResponse({ status: 422, description: 'Unknown plan or bad email.' })
  @Audited<AccountDto>('account.set-plan', (_request, account) => ({
    target: account.email,
    detail: { plan: account.plan },
  }))
  async setPlan(@Param('email') email: string, @Body() body: SetPlanDto): Promise<AccountDto> {
    await this.accounts.setPlan(email, body.plan);
    return AccountDto.of(await this.accounts.find(email));
  }

  @Get('accounts/:email/usage')
  @ApiOkResponse({ type: UsageDto })
  @ApiResponse({ status: 404, description: 'No such account.' })
  usage(@Param('email') email: string): Promise<UsageDto> {
    return this.accountUsage.usageOf(email);
  }

  @Get('accounts/:email/keys')
  @ApiOkResponse({ type: [KeyDto] })
  @ApiResponse({ status: 404, description: 'No such account.' })
  async listKeys(@Param('email') email: string): Promise<KeyDto[]> {
    await this.accounts.find(email);
    return (await this.keys.list(email)).map((key) => KeyDto.of(key));
  }

  @Post('accounts/:email/keys')
  @ApiCreatedResponse({ type: CreatedKeyDto })
  @ApiResponse({ status: 404, description: 'No such account.' })
  @ApiResponse({ status: 422, description: 'A bad key name.' })
  @Audited<CreatedKeyDto>('key.create', (_request, key) => ({
    target: key.email,
    detail: { prefix: key.prefix },
  }))
  async createKey(
    @Param('email') email: string,
    @Body() body: CreateKeyDto,
  ): Promise<CreatedKeyDto> {
    await this.accounts.find(email);
    return this.keys.create(email, body.name);
  }

  @Delete('keys/:id')
  @HttpCode(200)
  @ApiOkResponse({ type: KeyDto })
  @ApiResponse({ status: 404, description: 'No such key.' })
  @Audited<KeyDto>('key.revoke', (_request, key) => ({
    target: key.id,
    detail: { prefix: key.prefix },
  }))
  async revokeKey(@Param('id') id: string): Promise<KeyDto> {
    return KeyDto.of(await this.keys.revokeById(id));
  }

  @Post('keys/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a key given whole or by its displayed prefix' })
  @ApiOkResponse({ type: KeyDto })
  @ApiResponse({ status: 404, description: 'No such key, or a prefix of several.' })
  @Audited<KeyDto>('key.revoke', (_request, key) => ({
    target: key.id,
    detail: { prefix: key.prefix },
  }))
  async revokeKeyByValue(@Body() body: RevokeKeyDto): Promise<KeyDto> {
    return KeyDto.of(await this.keys.revoke(body.key.trim()));
  }
}
