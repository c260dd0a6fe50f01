import assert from 'node:assert/strict';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-policy-0001-0123456789abcdef';
const GLOBEX = 'tg-globex-policy-0001-0123456789abcdef';

/**
 * One database shared by two organizations (both granted write), so what one request could leave behind
 * on the shared connection would reach the other organization's next request.
 */
describe('POST /api/sql/query: the statement policy keeps each request from changing the next one', () => {
  let gateway: RunningGateway;
  const sql = (key: string, query: string) => postJson(`${gateway.url}/api/sql/query`, { query }, { authorization: `Bearer ${key}` });

  beforeEach(async () => {
    gateway = await startGateway({
      keys: [
        { key: ACME, org: 'acme' },
        { key: GLOBEX, org: 'globex' },
      ],
      organizations: { acme: {}, globex: {} },
      sql: { databases: { main: { access: { acme: 'write', globex: 'write' } } }, default: 'main' },
    });
    assert.equal((await sql(ACME, 'CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT CHECK (v <> \'bad\'))')).status, 200);
  });
  afterEach(() => gateway.close());

  const refusedPragmas = [
    'PRAGMA writable_schema = ON',
    'PRAGMA journal_mode = OFF',
    'PRAGMA locking_mode = NORMAL',
    'PRAGMA mmap_size = 268435456',
    'PRAGMA synchronous = OFF',
    'PRAGMA ignore_check_constraints = ON',
    'PRAGMA query_only = 1',
    'PRAGMA foreign_keys = ON',
    'PRAGMA recursive_triggers = ON',
    'PRAGMA temp_store = MEMORY',
    'PRAGMA cache_size = 1',
    'PRAGMA main.cache_size(5)',
    'PRAGMA "writable_schema" = 1',
    '/* hidden */ EXPLAIN PRAGMA foreign_keys = ON',
    'SELECT 1; PRAGMA writable_schema = ON',
    'PRAGMA shrink_memory',
    'PRAGMA no_such_pragma = 1',
  ];
  for (const pragma of refusedPragmas) {
    it(`refuses ${pragma} with 400 pragma_not_allowed and leaves the setting as it was`, async () => {
      const { status, body } = await sql(ACME, pragma);
      assert.equal(status, 400);
      assert.equal(body.error_code, 'pragma_not_allowed');
      assert.match(body.error_message, /PRAGMA/);
      const settings = await sql(GLOBEX, 'SELECT * FROM pragma_writable_schema, pragma_foreign_keys, pragma_recursive_triggers, pragma_query_only, pragma_ignore_check_constraints');
      assert.deepEqual(settings.body.data, [[0, 0, 0, 0, 0]]);
      assert.deepEqual((await sql(GLOBEX, 'PRAGMA journal_mode')).body.data, [['memory']]);
      assert.deepEqual((await sql(GLOBEX, 'PRAGMA locking_mode')).body.data, [['exclusive']]);
    });
  }

  it('refuses writable_schema, so sqlite_master cannot be rewritten to break the database', async () => {
    const { body } = await sql(ACME, "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE t(broken' WHERE name = 't'");
    assert.equal(body.error_code, 'pragma_not_allowed');
    assert.equal((await sql(ACME, "UPDATE sqlite_master SET sql = 'x' WHERE name = 't'")).status, 400);
    assert.equal((await sql(GLOBEX, "INSERT INTO t(v) VALUES ('ok')")).status, 200);
  });

  it("keeps ignore_check_constraints from switching off another organization's CHECK", async () => {
    await sql(ACME, 'PRAGMA ignore_check_constraints = ON');
    const { status, body } = await sql(GLOBEX, "INSERT INTO t(v) VALUES ('bad')");
    assert.equal(status, 400);
    assert.equal(body.error_code, 'constraint_violation');
  });

  it('leaves settings alone when a PRAGMA is called as a table-valued function (SQLite takes no value there)', async () => {
    for (const query of ['SELECT * FROM pragma_foreign_keys(1)', "SELECT * FROM pragma_journal_mode('off')", 'SELECT * FROM pragma_writable_schema(1)']) {
      assert.equal((await sql(ACME, query)).status, 400, query);
    }
    assert.deepEqual((await sql(GLOBEX, 'SELECT * FROM pragma_writable_schema, pragma_foreign_keys, pragma_journal_mode')).body.data, [[0, 0, 'memory']]);
  });

  it('allows reading PRAGMAs and setting user_version and application_id', async () => {
    assert.deepEqual((await sql(ACME, 'PRAGMA table_info(t)')).body.data.map((row: unknown[]) => row[1]), ['id', 'v']);
    assert.equal((await sql(ACME, 'PRAGMA integrity_check')).body.data[0][0], 'ok');
    assert.equal((await sql(ACME, 'PRAGMA foreign_keys')).status, 200);
    assert.equal((await sql(ACME, 'PRAGMA user_version = 42; PRAGMA application_id = 7')).status, 200);
    assert.deepEqual((await sql(GLOBEX, 'SELECT * FROM pragma_user_version, pragma_application_id')).body.data, [[42, 7]]);
  });

  it("refuses a TEMP view, so it never shadows the other organization's table", async () => {
    const { status, body } = await sql(ACME, "CREATE TEMP VIEW t AS SELECT 999 AS id, 'shadow' AS v");
    assert.equal(status, 400);
    assert.equal(body.error_code, 'temp_object_not_allowed');
    await sql(GLOBEX, "INSERT INTO t(v) VALUES ('real')");
    assert.deepEqual((await sql(GLOBEX, 'SELECT v FROM t')).body.data, [['real']]);
  });

  it("refuses a TEMP trigger, so it never rewrites the other organization's inserts", async () => {
    for (const create of [
      "CREATE TEMP TRIGGER spy AFTER INSERT ON t BEGIN UPDATE t SET v = 'rewritten' WHERE id = new.id; END",
      "CREATE TRIGGER temp.spy AFTER INSERT ON main.t BEGIN UPDATE t SET v = 'rewritten'; END",
      'CREATE TEMPORARY TABLE scratch(x)',
      'CREATE TABLE "temp".scratch(x)',
      '/* CREATE TABLE ok(x); */ CREATE TEMP TABLE scratch AS SELECT 1',
      ' \vCREATE TEMP TABLE scratch(x)',
    ]) {
      const { status, body } = await sql(ACME, create);
      assert.equal(status, 400, create);
      assert.equal(body.error_code, 'temp_object_not_allowed', create);
    }
    await sql(GLOBEX, "INSERT INTO t(v) VALUES ('mine')");
    assert.deepEqual((await sql(GLOBEX, 'SELECT v FROM t')).body.data, [['mine']]);
    assert.deepEqual((await sql(GLOBEX, 'SELECT count(*) FROM temp.sqlite_master')).body.data, [[0]]);
  });

  it('refuses ATTACH, DETACH and VACUUM with 400 statement_not_allowed', async () => {
    for (const statement of ["ATTACH ':memory:' AS other", 'DETACH other', 'VACUUM', "VACUUM INTO '/tmp/copy.sqlite'"]) {
      const { status, body } = await sql(ACME, statement);
      assert.equal(status, 400, statement);
      assert.equal(body.error_code, 'statement_not_allowed', statement);
    }
    assert.deepEqual((await sql(GLOBEX, 'SELECT name FROM pragma_database_list')).body.data, [['main']]);
  });

  it('refuses a PRAGMA, COMMIT, BEGIN, ATTACH or VACUUM behind a space and a vertical tab (SQLite skips both): settings unchanged, the request still one transaction', async () => {
    for (const [query, code] of [
      [' \vPRAGMA recursive_triggers = ON', 'pragma_not_allowed'],
      ['SELECT 1;\n\v\vPRAGMA writable_schema = ON', 'pragma_not_allowed'],
      ['EXPLAIN \vPRAGMA foreign_keys = ON', 'pragma_not_allowed'],
      ["INSERT INTO t(v) VALUES ('committed half-way'); \n\vCOMMIT", 'transaction_control'],
      ["INSERT INTO t(v) VALUES ('left open'); \vCOMMIT; \vBEGIN", 'transaction_control'],
      [" \vATTACH ':memory:' AS other", 'statement_not_allowed'],
      [' \vVACUUM', 'statement_not_allowed'],
    ]) {
      const { status, body } = await sql(ACME, query!);
      assert.deepEqual([status, body.error_code], [400, code], query);
    }
    assert.deepEqual((await sql(GLOBEX, 'SELECT * FROM pragma_writable_schema, pragma_foreign_keys, pragma_recursive_triggers')).body.data, [[0, 0, 0]]);
    assert.deepEqual((await sql(GLOBEX, 'SELECT count(*) FROM t')).body.data, [[0]]);
    assert.deepEqual((await sql(GLOBEX, 'SELECT name FROM pragma_database_list')).body.data, [['main']]);
  });

  it('reads keywords as SQLite does: one hidden in a string or a comment is not a statement', async () => {
    assert.equal((await sql(ACME, "INSERT INTO t(v) VALUES ('PRAGMA writable_schema = ON; ATTACH')")).status, 200);
    assert.equal((await sql(ACME, '-- PRAGMA journal_mode = OFF\nSELECT 1')).status, 200);
    assert.equal((await sql(ACME, 'SELECT 1 AS "temp"; SELECT 2')).status, 200);
    assert.equal((await sql(ACME, ';;  ; SELECT 3')).body.data[0][0], 3);
  });

  it('answers a statement ending in an unterminated comment at once, as SQLite reads it (the comment runs to the end)', async () => {
    const { status, body } = await sql(ACME, 'SELECT 1 AS one /* never closed');
    assert.equal(status, 200);
    assert.deepEqual(body.data, [[1]]);
    assert.equal((await sql(ACME, '/* PRAGMA writable_schema = ON')).body.error_code, 'empty_query');
  });
});
