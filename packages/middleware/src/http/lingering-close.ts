import type { Socket } from 'node:net';

/**
 * Makes the connection close the way a server must when it answers before reading the request's body
 * (RFC 9112 §9.6): send the answer, half-close, and keep discarding what the client still sends for a
 * while before closing. Node ends a `connection: close` answer with `socket.destroySoon()`, and closing
 * a socket whose input is unread makes the kernel send a reset, which can destroy the answer before the
 * client read it: a keyless client uploading 20 MiB then sees ECONNRESET, not its 401.
 *
 * @example
 * lingeringClose(req.socket, 2_000); // before answering with `connection: close`
 */
export function lingeringClose(socket: Socket, lingerMs: number): void {
  socket.destroySoon = function lingeringDestroy(this: Socket) {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
