import type { AccountDto } from '../admin/admin.dto';
import { AccountsService } from '../accounts/accounts.service';
import { auditCli, offlineOrThroughServer } from './admin-client';

export async function setPlan(email: string, plan: string): Promise<number> {
  const result = await offlineOrThroughServer<{ email: string; plan: string }>(
    async (context) => {
      const set = await context.get(AccountsService).setPlan(email, plan);
      await auditCli(context, 'account.set-plan', set.email, { plan: set.plan });
      return set;
    },
    (admin) =>
      admin.call<AccountDto>('PUT', `/admin/accounts/${encodeURIComponent(email)}/plan`, { plan }),
  );
  console.log(`${result.email} is now on the ${result.plan} plan`);
  return 0;
}
