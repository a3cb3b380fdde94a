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
} from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiKeysService } from '../auth/api-keys.service';
import { AccountsService } from '../billing/accounts.service';
import { AdminGuard } from './admin.guard';
import {
  AccountDto,
  CreateAccountDto,
  CreatedKeyDto,
  CreateKeyDto,
  KeyDto,
  SetPlanDto,
  UsageDto,
} from './admin.dto';

/** Accounts, plans, keys and usage for operators of a self-hosted freshfacts. */
@ApiTags('admin')
@ApiBearerAuth()
@Controller('admin')
@UseGuards(AdminGuard)
export class AdminController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly keys: ApiKeysService,
  ) {}

  @Get('accounts')
  @ApiOkResponse({ type: [AccountDto] })
  async listAccounts(): Promise<AccountDto[]> {
    return (await this.accounts.list()).map((account) => AccountDto.of(account));
  }

  @Post('accounts')
  @ApiCreatedResponse({ type: AccountDto })
  async createAccount(@Body() body: CreateAccountDto): Promise<AccountDto> {
    return AccountDto.of(await this.accounts.create(body.email, body.plan));
  }

  @Put('accounts/:email/plan')
  @ApiOkResponse({ type: AccountDto })
  async setPlan(@Param('email') email: string, @Body() body: SetPlanDto): Promise<AccountDto> {
    await this.accounts.setPlan(email, body.plan);
    return AccountDto.of(await this.accounts.find(email));
  }

  @Get('accounts/:email/usage')
  @ApiOkResponse({ type: UsageDto })
  usage(@Param('email') email: string): Promise<UsageDto> {
    return this.accounts.usageOf(email);
  }

  @Get('accounts/:email/keys')
  @ApiOkResponse({ type: [KeyDto] })
  async listKeys(@Param('email') email: string): Promise<KeyDto[]> {
    await this.accounts.find(email);
    return (await this.keys.list(email)).map((key) => KeyDto.of(key));
  }

  @Post('accounts/:email/keys')
  @ApiCreatedResponse({ type: CreatedKeyDto })
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
  async revokeKey(@Param('id') id: string): Promise<KeyDto> {
    return KeyDto.of(await this.keys.revokeById(id));
  }
}
