#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError } from './config/index.js';
import { ServiceError } from './errors/index.js';
import { StoreDamagedError, StoreInUseError } from './store/index.js';
import { registerAdminCommand } from './cli/admin-command.js';
import { registerServeCommand, StartError } from './cli/serve-command.js';

const program = new Command('tollgate').description('Embeddable model gateway and SQL endpoint').showHelpAfterError();
registerServeCommand(program);
registerAdminCommand(program);

try {
  await program.parseAsync();
} catch (error) {
  // Configuration and admin mistakes are the user's to fix: a clear message, no stack trace.
  if (error instanceof ConfigError || error instanceof ServiceError || error instanceof StoreInUseError || error instanceof StartError || error instanceof StoreDamagedError) {
    console.error(error.message);
    process.exit(1);
  }
  // The machine's refusals (a data directory that cannot be made or written, a full disk): the message names
  // the path and the reason; a stack trace would only hide it.
  const failure = error as NodeJS.ErrnoException;
  if (typeof failure?.code === 'string' && typeof failure.syscall === 'string') {
    console.error(`tollgate: ${failure.message}`);
    process.exit(1);
  }
  throw error;
}
