import assert from 'node:assert/strict';
import { TollgateClient, TollgateError } from '@tollgate/client';
import { ScriptedServer } from './scripted-server.js';

/** A server (or something impersonating Tollgate) that redirects: the key must never follow to another origin. */
describe('@tollgate/client: redirects', () => {
  let server: ScriptedServer;
  let elsewhere: ScriptedServer;
  beforeEach(async () => {
    server = await new ScriptedServer().start();
    elsewhere = await new ScriptedServer().start();
  });
  afterEach(async () => {
    await server.close();
    await elsewhere.close();
  });

  for (const status of [301, 302, 307, 308]) {
    it(`raises a ${status} as a TollgateError and sends nothing, key included, to the origin its Location names`, async () => {
      server.respond({ status, headers: { location: `${elsewhere.url}/v1/chat/completions` }, body: {} });
      elsewhere.respond({ status: 200, body: { id: 'stolen', object: 'chat.completion', model: 'm', choices: [] } });
      const client = new TollgateClient({ baseUrl: server.url, apiKey: 'tg-secret-key-of-the-caller', sleep: async () => undefined });
      const error = await client.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      assert.ok(error instanceof TollgateError, String(error));
      assert.equal(error.status, status);
      assert.equal(elsewhere.requests.length, 0);
      assert.equal(server.requests.length, 1, 'a redirect is not retried');
    });
  }
});
