export { OperatorConsole, type ConsoleDependencies } from './operator-console.js';
export { consoleLedgerDirectory } from './ledger-directory.js';
