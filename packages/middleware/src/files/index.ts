export { PRIVATE_FILE_MODE, PRIVATE_DIR_MODE, ensurePrivateDir, openPrivate, writePrivateFileSync, installationSecret, syncDirectory } from './private-files.js';
