import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Closes the connection of an answer its client does not read. What the kernel's socket buffer cannot take stays in
 * the server's memory until the client reads it, and the request's slot is already free: one key could pin an
 * answer of up to `maxResultBytes` on every connection it opens. So once an answer leaves bytes unsent, the
 * connection is closed when they stop going out for `pausedMs` (relay.maxPausedStreamMs, the SSE writer's bound
 * too). A client that reads, however slowly, keeps it.
 *
 * Checked by polling what is still queued: a large answer is one write, whose completion (the socket's idle timeout
 * resets on it) comes only once the whole of it left, so a timeout would cut a slow reader that keeps reading.
 *
 * @example
 * await route.handler(ctx);
 * closeIfUnread(res, config.relay.maxPausedStreamMs);
 */
export function closeIfUnread(res: ServerResponse, pausedMs: number): void {
  const socket = res.socket as WatchedSocket | null;
  // Nearly every answer went to the kernel whole during end(): nothing is left to watch, and nothing is armed.
  if (!socket || unsentBytes(socket) === 0) return;
  // One watcher per connection: a keep-alive connection carries many answers, and a watcher (its listener, its
  // timer) per answer would grow with them. A new answer on a watched connection restarts its count.
  const watching = socket[WATCH];
  if (watching) {
    watching.unsent = unsentBytes(socket);
    return;
  }
  const state = { unsent: unsentBytes(socket) };
  socket[WATCH] = state;
  const stop = () => {
    clearInterval(watch);
    socket.off('close', stop);
    socket[WATCH] = undefined;
  };
  const watch = setInterval(() => {
    const now = unsentBytes(socket);
    if (now === 0 || socket.destroyed) stop();
    else if (now >= state.unsent) socket.destroy();
    else state.unsent = now;
  }, pausedMs);
  watch.unref();
  socket.once('close', stop);
}

const WATCH = Symbol('tollgate.unreadAnswerWatch');
type WatchedSocket = Socket & { [WATCH]?: { unsent: number } | undefined };

/**
 * Bytes written to the socket but not yet to the kernel: Node's own buffer (`writableLength`) and what libuv still
 * holds of the writes handed to it (`_handle.writeQueueSize`, which shrinks as the client reads; no public property
 * tells it: `bytesWritten` counts queued bytes as sent). Without a handle (closed), nothing.
 */
function unsentBytes(socket: Socket): number {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } | null })._handle;
  return socket.writableLength + (handle?.writeQueueSize ?? 0);
}
