/**
 * The `express4` devDependency (`npm:express@^4`) has no types of its own; the Express 4
 * tests use Express 5's (@types/express), whose shape covers what they call.
 */
declare module 'express4' {
  import express from 'express';
  export default express;
}
