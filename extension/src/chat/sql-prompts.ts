import type { TableSchema } from '../databases/schema.js';

/** The current database's tables and columns as CREATE-like lines: the model writes SQL that fits them. */
export function schemaText(db: string, tables: readonly TableSchema[]): string {
  if (tables.length === 0) return `Database "${db}" (SQLite) has no tables yet.`;
  const lines = tables.map((table) => `${table.kind === 'view' ? 'VIEW' : 'TABLE'} ${table.name}(${table.columns.map((column) => `${column.name}${column.type ? ` ${column.type}` : ''}`).join(', ')})`);
  return `Database "${db}" (SQLite):\n${lines.join('\n')}`;
}

/**
 * "Fix with AI" on a Tollgate SQL diagnostic: the failing statement, the error as the endpoint said it, and
 * the schema, put in the chat's composer for the user to send (issue 18 "Fix with AI").
 */
export function fixPrompt(statement: string, error: string, schema: string): string {
  return ['Fix this SQL statement. Answer with the corrected statement in a ```sql block, then one line on what was wrong.', '', '```sql', statement.trim(), '```', '', `Error: ${error}`, '', schema].join('\n');
}

export type ParticipantCommand = 'sql' | 'explain' | 'fix' | undefined;

/**
 * What the `@tollgate` chat participant asks the model for each slash command: `/sql` writes SQL for the
 * current database from a question, `/explain` explains SQL (the prompt, else the editor's selection), `/fix`
 * fixes it given the file's Tollgate diagnostics; no command is a plain question. The schema comes first, as a
 * system message, for the commands about SQL.
 */
export function participantMessages(command: ParticipantCommand, prompt: string, context: { schema: string; selection?: string; problems?: string[] }): { role: 'system' | 'user'; content: string }[] {
  const sql = prompt.trim() || context.selection?.trim() || '';
  const system = { role: 'system' as const, content: `You help with SQL on SQLite through Tollgate. ${context.schema}` };
  switch (command) {
    case 'sql':
      return [system, { role: 'user', content: `Write one SQLite query for this, in a \`\`\`sql block, using only the tables above:\n${prompt.trim()}` }];
    case 'explain':
      return [system, { role: 'user', content: `Explain what this SQL does, step by step, briefly:\n\`\`\`sql\n${sql}\n\`\`\`` }];
    case 'fix': {
      const problems = context.problems?.length ? `\nErrors reported:\n${context.problems.map((problem) => `- ${problem}`).join('\n')}` : '';
      return [system, { role: 'user', content: `Fix this SQL; answer with the corrected statement in a \`\`\`sql block:\n\`\`\`sql\n${sql}\n\`\`\`${problems}` }];
    }
    default:
      return [{ role: 'user', content: prompt }];
  }
}
