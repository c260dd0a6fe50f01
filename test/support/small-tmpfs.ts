import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real filesystem that fills up: a tmpfs of `sizeBytes` mounted on a fresh directory (mount needs root, as
 * the tests run in CI). Writes past its size fail with ENOSPC, as on a full disk.
 */
export class SmallTmpfs {
  private constructor(readonly dir: string) {}

  static mount(sizeBytes: number): SmallTmpfs {
    if (process.getuid?.() !== 0) throw new Error('SmallTmpfs needs root to mount a tmpfs (the CI runs the tests as root)');
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0777`, 'tmpfs', dir]);
    return new SmallTmpfs(dir);
  }

  unmount(): void {
    execFileSync('umount', [this.dir]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
