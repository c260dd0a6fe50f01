import { buildConnector, type Agent } from 'undici';

/**
 * Streams one HTTP/2 connection carries at once. 100 is what the providers' servers commonly announce
 * (SETTINGS_MAX_CONCURRENT_STREAMS; RFC 9113 §6.5.2 recommends no less), so 10,000 open streams need about
 * 100 upstream connections instead of 10,000 (issue 19). `relay.connections` still bounds them per origin.
 */
export const STREAMS_PER_CONNECTION = 100;

/**
 * The Agent options of `relay.http2` (README "Relay limits"): upstream calls multiplexed over HTTP/2,
 * negotiated by ALPN on https origins and spoken directly (h2c, prior knowledge) on http origins.
 * undici queues a POST behind any running request of its connection unless the request is marked
 * idempotent, and then pipelines it on HTTP/1.1 too; so with this option every request is marked
 * idempotent (see `idempotent` in UpstreamClient) and a connection that is not HTTP/2 is refused here
 * with an error that names the option, instead of pipelining model calls on an HTTP/1.1 connection.
 * undici never retries a request by itself, so `idempotent` changes only how it queues.
 *
 * @example
 * new Agent({ connections: 256, ...http2AgentOptions(config.relay.http2) })
 */
export function http2AgentOptions(http2: boolean): Agent.Options {
  if (!http2) return {};
  const connect = buildConnector({ allowH2: true, useH2c: true } as buildConnector.BuildOptions);
  return {
    allowH2: true,
    pipelining: STREAMS_PER_CONNECTION,
    connect: (options, callback) =>
      connect(options, (error, socket) => {
        if (error) return callback(error, null);
        if ((socket as { alpnProtocol?: string | false }).alpnProtocol === 'h2') return callback(null, socket);
        socket.destroy();
        callback(new Error(`${options.protocol}//${options.hostname}:${options.port} does not speak HTTP/2 (relay.http2 is on)`), null);
      }),
  };
}
