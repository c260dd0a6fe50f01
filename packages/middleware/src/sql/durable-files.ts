/** One definition for the whole package (files/). */
export { syncDirectory, createExclusive, unpredictableSibling } from '../files/index.js';
