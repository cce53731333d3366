/**
 * The vector suite (test/helpers/vectors-suite.ts) with the WebCrypto provider only,
 * for the runtime matrix (a browser, workerd). In Node, test/vectors.test.ts runs the
 * same suite with the node:crypto provider and the PEM import as well. Not a
 * `*.test.ts` file, so Vitest in Node does not run it twice.
 */
import { defineVectorTests } from '../helpers/vectors-suite';

defineVectorTests();
