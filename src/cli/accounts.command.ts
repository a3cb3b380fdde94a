import { AccountsService } from '../billing/accounts.service';
import { withContext } from './context';

export async function setPlan(email: string, plan: string): Promise<number> {
  const result = await withContext((context) => context.get(AccountsService).setPlan(email, plan));
  console.log(`${result.email} is now on the ${result.plan} plan`);
  return 0;
}
