import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { ConfigInput } from '@tollgate/middleware';

/** A Tollgate running in a child process (see gateway-child.ts): its URL, its RSS on demand, and close. */
export interface ChildGateway {
  url: string;
  rss(): Promise<number>;
  close(): Promise<void>;
}

export async function startChildGateway(config: ConfigInput): Promise<ChildGateway> {
  const child: ChildProcess = fork(new URL('./gateway-child.ts', import.meta.url), [JSON.stringify(config)], {
    execArgv: ['--conditions=tollgate-source', '--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = async <T>(key: string): Promise<T> => {
    for (;;) {
      const [message] = (await once(child, 'message')) as [Record<string, T>];
      if (key in message) return message[key]!;
    }
  };
  const url = await next<string>('url');
  return {
    url,
    async rss() {
      const reply = next<number>('rss');
      child.send('rss');
      return reply;
    },
    async close() {
      const exited = once(child, 'exit');
      child.send('close');
      await exited;
    },
  };
}
