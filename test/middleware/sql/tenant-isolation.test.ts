import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-writer-0001';
const ACME_READER = 'tg-acme-sqlread-0001';
const GLOBEX = 'tg-globex-writer-0001';
const AUDIT = 'tg-audit-granted-read-0001';

/** Two organizations (acme, globex) and an auditor, each reaching only what it was granted, through HTTP. */
describe('POST /api/sql/query: databases belong to organizations', () => {
  let gateway: RunningGateway;
  let dir: string;
  const sql = (key: string, query: string, db?: string) => postJson(`${gateway.url}/api/sql/query`, { query, ...(db ? { context: { db } } : {}) }, { authorization: `Bearer ${key}` });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-tenants-'));
    gateway = await startGateway(
      {
        keys: [
          { key: ACME, org: 'acme' },
          { key: ACME_READER, org: 'acme', scopes: ['sql:read'] },
          { key: GLOBEX, org: 'globex' },
          { key: AUDIT, org: 'audit' },
        ],
        organizations: { acme: {}, globex: {}, audit: {} },
        sql: {
          databases: {
            acme: { file: 'acme.sqlite', access: { acme: 'write', audit: 'read' } },
            globex: { access: { globex: 'write' } },
            shared: { access: { '*': 'read', acme: 'write' } },
          },
          default: 'acme',
        },
      },
      { baseDir: dir },
    );
    assert.equal((await sql(ACME, "CREATE TABLE secrets(v TEXT); INSERT INTO secrets VALUES ('acme-only')")).status, 200);
  });
  afterEach(async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers another organization's database exactly like a database that does not exist", async () => {
    const hidden = await sql(GLOBEX, 'SELECT * FROM secrets', 'acme');
    const unknown = await sql(GLOBEX, 'SELECT * FROM secrets', 'acne');
    assert.equal(hidden.status, 400);
    assert.equal(hidden.body.error_code, 'unknown_database');
    assert.deepEqual({ status: hidden.status, body: { ...hidden.body, context: null } }, { status: unknown.status, body: { ...unknown.body, context: null, error_message: unknown.body.error_message.replace('acne', 'acme') } });
    assert.doesNotMatch(hidden.text, /acme-only|secrets/);
    assert.deepEqual(unknown.body.context, { db: 'acne' });
  });

  it("reaches the default database only when it is granted: globex's key without context.db sees no acme data", async () => {
    const { status, body, text } = await sql(GLOBEX, 'SELECT * FROM secrets');
    assert.equal(status, 400);
    assert.equal(body.error_code, 'unknown_database');
    assert.match(body.error_message, /reaches: globex, shared$/);
    assert.deepEqual(body.context, {});
    assert.doesNotMatch(text, /acme/, "the default database's name is not told to a key that may not use it");
  });

  it('lets a read grant read and refuses its writes with read_only, changing nothing', async () => {
    assert.deepEqual((await sql(AUDIT, 'SELECT v FROM secrets', 'acme')).body.data, [['acme-only']]);
    for (const write of ["INSERT INTO secrets VALUES ('audit')", 'DROP TABLE secrets', 'PRAGMA user_version = 7', "SELECT 1; UPDATE secrets SET v = 'x'"]) {
      const { status, body } = await sql(AUDIT, write, 'acme');
      assert.equal(status, 400, write);
      assert.equal(body.error_code, 'read_only', write);
    }
    assert.deepEqual((await sql(ACME, 'SELECT v FROM secrets; PRAGMA user_version')).body.data, [[0]]);
    assert.deepEqual((await sql(ACME, 'SELECT v FROM secrets')).body.data, [['acme-only']]);
  });

  it('lets a sql:read key of the owning organization read but never write, also a statement it ran before as a read', async () => {
    assert.deepEqual((await sql(ACME_READER, 'SELECT count(*) FROM secrets')).body.data, [[1]]);
    // Kept (prepared once) by a writer, then sent by the reader: the verdict is per key, not per text.
    const insert = "INSERT INTO secrets VALUES ('again')";
    assert.equal((await sql(ACME, insert)).status, 200);
    assert.equal((await sql(ACME, insert)).status, 200);
    const refused = await sql(ACME_READER, insert);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error_code, 'read_only');
    assert.equal((await sql(ACME_READER, "CREATE TABLE mine(x)")).body.error_code, 'read_only');
    assert.deepEqual((await sql(ACME, 'SELECT count(*) FROM secrets')).body.data, [[3]]);
  });

  it("grants every organization through '*', with a named organization's grant taking precedence", async () => {
    assert.equal((await sql(ACME, 'CREATE TABLE notes(n)', 'shared')).status, 200);
    assert.equal((await sql(GLOBEX, 'SELECT * FROM notes', 'shared')).status, 200);
    assert.equal((await sql(GLOBEX, 'INSERT INTO notes VALUES (1)', 'shared')).body.error_code, 'read_only');
  });

  it("keeps one organization's writes out of the other's database", async () => {
    assert.equal((await sql(GLOBEX, 'CREATE TABLE secrets(v TEXT)', 'globex')).status, 200);
    assert.deepEqual((await sql(GLOBEX, 'SELECT count(*) FROM secrets', 'globex')).body.data, [[0]]);
    assert.deepEqual((await sql(ACME, 'SELECT count(*) FROM secrets')).body.data, [[1]]);
  });
});

describe('POST /api/sql/query: a config without access grants', () => {
  it('lets every organization write its databases, as before grants existed, and warns once that they are shared', async () => {
    const notices: string[] = [];
    const logger = { info: (message: string) => notices.push(message), error: (message: string) => notices.push(message) };
    const gateway = await startGateway({ keys: [{ key: ACME, org: 'acme' }, { key: GLOBEX, org: 'globex' }], organizations: { acme: {}, globex: {} }, sql: { databases: { main: {}, owned: { access: { acme: 'write' } } }, default: 'main' } }, { logger });
    try {
      const sql = (key: string, query: string) => postJson(`${gateway.url}/api/sql/query`, { query }, { authorization: `Bearer ${key}` });
      assert.equal((await sql(ACME, 'CREATE TABLE t(x)')).status, 200);
      assert.equal((await sql(GLOBEX, 'INSERT INTO t VALUES (1)')).status, 200);
      assert.deepEqual(notices, ['SQL database main has no "access" grant, so keys of every organization (acme, globex) may read and write it; grant each database to its organizations in sql.databases.<name>.access']);
    } finally {
      await gateway.close();
    }
  });
});
