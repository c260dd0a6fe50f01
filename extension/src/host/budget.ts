/**
 * The session budget as the status bar shows it: spent of budget, in dollars (issue 18 #7: "$0.12 of $5").
 * A spend below a cent shows as "<$0.01", not as nothing spent.
 *
 * @example spendLabel(5, 4.88) // '$0.12 of $5'
 * @example spendLabel(5, 4.9996) // '<$0.01 of $5'
 */
export function spendLabel(budgetUsd: number, walletUsd: number): string {
  const spent = Math.max(0, budgetUsd - walletUsd);
  const shown = spent > 0 && spent < 0.005 ? '<$0.01' : `$${spent.toFixed(2)}`;
  return `${shown} of $${Number.isInteger(budgetUsd) ? budgetUsd : budgetUsd.toFixed(2)}`;
}

interface SettingLevels {
  workspaceFolderValue?: unknown;
  workspaceValue?: unknown;
}

/**
 * Where "Add credit" takes the user: the settings level whose `tollgate.sessionBudgetUsd` is in effect —
 * a folder's or the workspace's value overrides the user's, so opening User settings there changed nothing
 * (issue 18 #7). Commands take the search text as `query`.
 */
export function budgetSettingCommand(levels: SettingLevels | undefined): { command: string; args: unknown } {
  const query = 'tollgate.sessionBudgetUsd';
  if (levels?.workspaceFolderValue !== undefined) return { command: 'workbench.action.openFolderSettings', args: { query } };
  if (levels?.workspaceValue !== undefined) return { command: 'workbench.action.openWorkspaceSettings', args: { query } };
  return { command: 'workbench.action.openSettings', args: query };
}
