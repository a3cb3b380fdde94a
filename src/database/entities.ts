import { Account } from '../accounts/account.entity';
import { ApiKey } from '../auth/api-key.entity';
import { Fact } from '../facts/fact.entity';

export const ENTITIES = [Fact, Account, ApiKey];
