// Stryker ignorer plugins for the equivalent patterns that recur across src/ (loaded by
// stryker.config.mjs). Everything else that is equivalent is recorded, with its reason, in
// scripts/mutation/equivalents.json.
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

// Web platform classes that every runtime botsig runs in provides; a `typeof X !== 'undefined'`
// guard exists only for runtimes outside the test matrix, so no test can make it false.
const PLATFORM_GLOBALS = new Set(['Request', 'Response', 'Headers', 'ReadableStream', 'TextEncoder', 'TextDecoder', 'URL', 'AbortController']);

function isPlatformGuard(node) {
  if (node?.type !== 'BinaryExpression' || !['!==', '!=', '===', '=='].includes(node.operator)) return false;
  const [a, b] = [node.left, node.right];
  const typeofGlobal = (n) =>
    n.type === 'UnaryExpression' && n.operator === 'typeof' && n.argument.type === 'Identifier' && PLATFORM_GLOBALS.has(n.argument.name);
  const undef = (n) => n.type === 'StringLiteral' && n.value === 'undefined';
  return (typeofGlobal(a) && undef(b)) || (typeofGlobal(b) && undef(a));
}

// `toInfo(error, 'ERR_…')` reports the error's own code when it is a BotsigError and the second
// argument only for anything else; the steps that call it throw BotsigErrors only, so the
// fallback code is never read.
function isFallbackCode(path) {
  const parent = path.parentPath?.node;
  return (
    path.node.type === 'StringLiteral' &&
    parent?.type === 'CallExpression' &&
    parent.callee.type === 'Identifier' &&
    parent.callee.name === 'toInfo' &&
    parent.arguments[1] === path.node
  );
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'botsig-equivalents', {
    shouldIgnore(path) {
      if (isPlatformGuard(path.node)) return 'a platform-feature guard: every runtime the tests run in has the class';
      if (isFallbackCode(path)) return "toInfo's fallback code: the step throws BotsigErrors only, whose own code is reported";
      return undefined;
    },
  }),
];
