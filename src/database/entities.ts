import { Account } from '../auth/account.entity';
import { ApiKey } from '../auth/api-key.entity';
import { Fact } from '../facts/fact.entity';

export const ENTITIES = [Fact, Account, ApiKey];
