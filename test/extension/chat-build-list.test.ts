import assert from 'node:assert/strict';
import { KEPT_CONVERSATIONS, KEPT_MESSAGES, archive, conversationTitle, reopen } from '../../extension/src/chat/conversation-history.js';
import { fixPrompt, participantMessages, schemaText } from '../../extension/src/chat/sql-prompts.js';

const at = new Date('2026-11-23T12:00:00Z');
const talk = (question: string) => [
  { role: 'user' as const, content: question },
  { role: 'assistant' as const, content: `Echo: ${question}` },
];

describe('extension: conversation history, Fix with AI and the @tollgate commands', () => {
  it('puts a conversation aside newest first, titled by its first question, and keeps no empty one', () => {
    const history = archive(archive([], talk('first question'), at), talk('second\nquestion'), at);
    assert.deepEqual(history.map((saved) => saved.title), ['second question', 'first question']);
    assert.equal(history[0]!.at, '2026-11-23T12:00:00.000Z');
    assert.deepEqual(archive(history, [], at), history);
  });

  it(`keeps at most ${KEPT_CONVERSATIONS} conversations of at most ${KEPT_MESSAGES} messages`, () => {
    let history = archive([], Array.from({ length: 450 }, (_, index) => ({ role: 'user' as const, content: `m${index}` })), at);
    assert.equal(history[0]!.messages.length, KEPT_MESSAGES);
    assert.equal(history[0]!.messages.at(-1)!.content, 'm449', 'the latest messages are kept');
    for (let index = 0; index < 30; index++) history = archive(history, talk(`q${index}`), at);
    assert.equal(history.length, KEPT_CONVERSATIONS);
    assert.equal(history[0]!.title, 'q29');
    assert.equal(conversationTitle(talk('x'.repeat(100))).length, 80);
  });

  it('reopens a saved conversation and puts the current one aside in its place', () => {
    const history = archive(archive([], talk('old one'), at), talk('older? no, newer'), at);
    const next = reopen(history, 1, talk('current'), at);
    assert.deepEqual(next.messages, talk('old one'));
    assert.deepEqual(next.history.map((saved) => saved.title), ['current', 'older? no, newer']);
    assert.deepEqual(reopen(history, 7, talk('current'), at).messages, talk('current'), 'an unknown entry changes nothing');
  });

  it('asks to fix a statement with its error and the current database schema', () => {
    const schema = schemaText('scratch', [{ name: 'people', kind: 'table', columns: [{ name: 'id', type: 'INTEGER' }, { name: 'name', type: 'TEXT' }] }]);
    assert.equal(schema, 'Database "scratch" (SQLite):\nTABLE people(id INTEGER, name TEXT)');
    assert.equal(schemaText('empty', []), 'Database "empty" (SQLite) has no tables yet.');
    const prompt = fixPrompt('  SELEC name FROM people; ', 'near "SELEC": syntax error', schema);
    assert.match(prompt, /^Fix this SQL statement\./);
    assert.match(prompt, /```sql\nSELEC name FROM people;\n```\n\nError: near "SELEC": syntax error\n\nDatabase "scratch" \(SQLite\):\nTABLE people\(id INTEGER, name TEXT\)$/);
  });

  it('builds /sql, /explain and /fix questions with the schema as a system message; a plain question stays as asked', () => {
    const schema = 'Database "scratch" (SQLite):\nTABLE people(id INTEGER)';
    const sql = participantMessages('sql', 'how many people?', { schema });
    assert.deepEqual(sql.map((message) => message.role), ['system', 'user']);
    assert.match(sql[0]!.content, /TABLE people\(id INTEGER\)/);
    assert.match(sql[1]!.content, /Write one SQLite query.*\nhow many people\?$/s);
    assert.match(participantMessages('explain', '', { schema, selection: 'SELECT 1' })[1]!.content, /```sql\nSELECT 1\n```/, 'the selection when the prompt is empty');
    const fix = participantMessages('fix', 'SELEC 1', { schema, problems: ['near "SELEC": syntax error'] });
    assert.match(fix[1]!.content, /```sql\nSELEC 1\n```\nErrors reported:\n- near "SELEC": syntax error$/);
    assert.deepEqual(participantMessages(undefined, 'hello', { schema }), [{ role: 'user', content: 'hello' }]);
  });
});
