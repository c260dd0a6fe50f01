/** One definition for the whole package (files/). */
export { syncDirectory, createExclusive, unpredictableSibling, writeFully } from '../files/index.js';
