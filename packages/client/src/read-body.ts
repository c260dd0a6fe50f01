/**
 * An answer's body as text, read up to `limit` bytes: past it, reading stops and the connection is closed (the
 * body destroyed), so an answer that is huge or never ends costs at most `limit` bytes of memory. `cut` says the
 * body went on past `limit`; `text` is then its first `limit` bytes.
 *
 * @example
 * const { text, cut } = await readBounded(response.body, 64 * 1024);
 */
export async function readBounded(body: AsyncIterable<Uint8Array>, limit: number): Promise<{ text: string; cut: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early (break) destroys the body: undici aborts the request and drops its socket.
  for await (const chunk of body) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      return { text: Buffer.concat(chunks).toString('utf8'), cut: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), cut: false };
}
