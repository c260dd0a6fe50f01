#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError } from './config/index.js';
import { ServiceError } from './errors/index.js';
import { StoreInUseError } from './store/index.js';
import { registerAdminCommand } from './cli/admin-command.js';
import { registerServeCommand } from './cli/serve-command.js';

const program = new Command('tollgate').description('Embeddable model gateway and SQL endpoint').showHelpAfterError();
registerServeCommand(program);
registerAdminCommand(program);

try {
  await program.parseAsync();
} catch (error) {
  // Configuration and admin mistakes are the user's to fix: a clear message, no stack trace.
  if (error instanceof ConfigError || error instanceof ServiceError || error instanceof StoreInUseError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
