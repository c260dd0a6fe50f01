import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { postJson } from '../../support/gateway.js';
import { TEST_KEY, startStack } from '../gateway/gateway-fixture.js';
import { sample } from './prometheus-text.js';

const METRICS_TOKEN = 'tg-metrics-scrape-token-0123456789abcdef';
/** 2,000 one-token words: the fakes count a prompt's tokens as its words. */
const PROMPT = 'word '.repeat(2_000).trim();

describe('metrics of prompt-cache tokens and of the SQL page journal', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tollgate-journal-metrics-'))));
  afterEach(async () => {
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async () => (await fetch(`${stack.gateway.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const sql = (query: string) => postJson(`${stack.gateway.url}/api/sql/query`, { query }, { authorization: `Bearer ${TEST_KEY}` });
  const segmentFiles = () => readdirSync(dir).filter((name) => name.startsWith('main.sqlite-tgj.'));

  it('counts cached prompt tokens apart, as the provider reported them', async () => {
    stack = await startStack({ metrics: { path: '/metrics', auth: { bearer: METRICS_TOKEN } } });
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    stack.openai.reply({ text: 'one two three', cachedTokens: 1_500 });
    const first = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: PROMPT }] });
    stack.openai.reply({ text: 'one two three', cachedTokens: 700 });
    await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: PROMPT }] });
    stack.openai.reply({ text: 'one two three' });
    await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: PROMPT }] });
    const text = await scrape();
    assert.equal(sample(text, 'tollgate_tokens_total', { org: 'acme', alias: 'gpt', direction: 'cached' }), 2_200);
    assert.equal(sample(text, 'tollgate_tokens_total', { org: 'acme', alias: 'gpt', direction: 'input' }), 3 * first.usage!.prompt_tokens);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).cachedInputTokens, 2_200);
  });

  it('has the exact group sizes, journal size and checkpoint sizes of known writes', async () => {
    stack = await startStack({
      metrics: { path: '/metrics', auth: { bearer: METRICS_TOKEN } },
      sql: { databases: { main: { file: join(dir, 'main.sqlite') } }, default: 'main', journalSegmentBytes: 65_536 },
    });
    assert.equal((await sql('CREATE TABLE t (x TEXT)')).status, 200);
    // One at a time: each write is a group of its own.
    for (let i = 0; i < 3; i++) assert.equal((await sql(`INSERT INTO t VALUES ('${i}')`)).status, 200);
    let text = await scrape();
    assert.equal(sample(text, 'tollgate_sql_commit_group_size_count', { database: 'main' }), 4);
    assert.equal(sample(text, 'tollgate_sql_commit_group_size_sum', { database: 'main' }), 4);
    assert.equal(sample(text, 'tollgate_sql_commit_group_size_bucket', { database: 'main', le: 1 }), 4);
    const [segment] = segmentFiles();
    assert.equal(sample(text, 'tollgate_sql_journal_bytes', { database: 'main' }), statSync(join(dir, segment!)).size);
    assert.equal(sample(text, 'tollgate_sql_checkpoint_bytes_count', { database: 'main' }), 0);

    // Twenty writes at once: every one is in some group, fewer groups than writes when they coalesce.
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => sql(`INSERT INTO t VALUES ('${'y'.repeat(100)}${i}')`)));
    assert.ok(answers.every((answer) => answer.status === 200));
    text = await scrape();
    assert.equal(sample(text, 'tollgate_sql_commit_group_size_sum', { database: 'main' }), 24);
    const groups = sample(text, 'tollgate_sql_commit_group_size_count', { database: 'main' });
    assert.ok(groups >= 5 && groups <= 24, `${groups} groups`);

    // Past 64 KiB the segment is checkpointed into the base and a new one started.
    const firstSegment = segmentFiles()[0]!;
    const before = statSync(join(dir, firstSegment)).size;
    assert.equal(sample(text, 'tollgate_sql_journal_bytes', { database: 'main' }), before);
    assert.ok(before < 65_536);
    const bulk = `INSERT INTO t SELECT printf('%.2000c', 'z') FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) SELECT i FROM n)`;
    assert.equal((await sql(bulk)).status, 200);
    // The rotation runs once the bulk write is answered; the next write is queued behind it.
    assert.equal((await sql(`INSERT INTO t VALUES ('after')`)).status, 200);
    text = await scrape();
    assert.equal(sample(text, 'tollgate_sql_commit_group_size_sum', { database: 'main' }), 26);
    // The write took the segment past 64 KiB: it was folded into the base whole, and a new, empty one opened.
    assert.equal(sample(text, 'tollgate_sql_checkpoint_bytes_count', { database: 'main' }), 1);
    const checkpointed = sample(text, 'tollgate_sql_checkpoint_bytes_sum', { database: 'main' });
    assert.ok(checkpointed >= 65_536 && checkpointed > before + 80_000, `${checkpointed} bytes checkpointed`);
    const [secondSegment] = segmentFiles().filter((name) => name !== firstSegment);
    assert.equal(sample(text, 'tollgate_sql_journal_bytes', { database: 'main' }), statSync(join(dir, secondSegment!)).size);
    assert.equal(sample(text, 'tollgate_sql_checkpoint_bytes_bucket', { database: 'main', le: 65_536 }), 0);
    assert.equal(sample(text, 'tollgate_sql_checkpoint_bytes_bucket', { database: 'main', le: 262_144 }), 1);
    // Closing folds the last segment too: nothing is left beside the base, and the journal gauge reads 0.
    const last = statSync(join(dir, secondSegment!)).size;
    await stack.gateway.gate.close();
    text = await scrape();
    assert.equal(sample(text, 'tollgate_sql_checkpoint_bytes_count', { database: 'main' }), 2);
    assert.equal(sample(text, 'tollgate_sql_checkpoint_bytes_sum', { database: 'main' }), checkpointed + last);
    assert.equal(sample(text, 'tollgate_sql_journal_bytes', { database: 'main' }), 0);
    assert.deepEqual(segmentFiles(), []);
  });
});
