/**
 * Fake upstream providers for tests: real HTTP servers on loopback speaking OpenAI's, Anthropic's and Gemini's
 * wire formats, failures included. test/fakes-selftest checks them against the recordings in test/fixtures/recorded.
 *
 * @example
 * const openai = await startFakeOpenAI();          // baseUrl http://127.0.0.1:PORT/v1, key sk-fake-openai
 * const anthropic = await startFakeAnthropic();    // baseUrl http://127.0.0.1:PORT,    key sk-fake-anthropic
 * const gemini = await startFakeGemini();          // baseUrl http://127.0.0.1:PORT/v1beta, key fake-gemini-key
 * openai.failNext({ status: 529, times: 2 });      // the provider's real error body, twice
 * anthropic.dropAfterChunks(3);                    // streams break after three events
 * await openai.refuseConnections();                // connections refused until restore()
 * openai.reply({ toolCalls: [{ name: 'f', arguments: { a: 1 } }] });
 * openai.requests.at(-1)?.body;                    // what reached upstream
 */
export { startFakeOpenAI, FAKE_OPENAI_KEY } from './openai-fake.js';
export { startFakeAnthropic, FAKE_ANTHROPIC_KEY } from './anthropic-fake.js';
export { startFakeGemini, FAKE_GEMINI_KEY } from './gemini-fake.js';
export { startFakeBedrock, FakeBedrock, FAKE_BEDROCK_API_KEY, FAKE_BEDROCK_CREDENTIALS, FAKE_BEDROCK_REGION, type StreamFault } from './bedrock-fake.js';
export { FakeServer, countWords, textOfMessages, type RecordedRequest, type Failure, type ScriptedReply, type Trickle } from './fake-server.js';
