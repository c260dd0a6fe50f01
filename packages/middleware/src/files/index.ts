export { PRIVATE_FILE_MODE, PRIVATE_DIR_MODE, ensurePrivateDir, ensurePrivateDirectory, openPrivate, writePrivateFileSync, installationSecret, syncDirectory } from './private-files.js';
export { writeFileAtomic, removeTemporaryFiles, createExclusive, unpredictableSibling } from './atomic-write.js';
export { appendFully, writeFully } from './write-fully.js';
