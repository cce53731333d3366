// The code blocks of a Markdown file, with their line numbers and the `<!-- readme: … -->`
// directive written just before each (see scripts/check-readme.mjs).

/** Fence languages checked, and the extension each block is written with. */
export const LANGUAGES = {
  ts: '.mts',
  typescript: '.mts',
  mts: '.mts',
  js: '.mjs',
  javascript: '.mjs',
  mjs: '.mjs',
};

/**
 * Directives, written as an HTML comment on the line before the block (blank lines
 * between are allowed): `<!-- readme: typecheck-only: why it must not run -->`.
 */
export const DIRECTIVES = {
  /** Type-check, never run (the block would contact a non-loopback address, or needs what the check cannot provide). */
  'typecheck-only': /^typecheck-only:\s*\S/,
  /** Run with a private redis-server on 127.0.0.1 and REDIS_URL naming it (type-check only when the binary is missing, outside CI). */
  'with-redis-server': /^with redis-server$/,
  /** Run in a directory where the nearest ```sh block above this one has been run first (with bash). */
  'after-sh-block': /^after the sh block above$/,
};

const OPEN = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)(.*)$/;
const DIRECTIVE = /^\s*<!--\s*readme:\s*(.*?)\s*-->\s*$/;

/**
 * @typedef {object} Block
 * @property {number} line        1-based line of the opening fence
 * @property {number} codeLine    1-based line of the block's first code line
 * @property {string} lang        the fence's language, lowercase
 * @property {string} code        the block's text (ends with a newline)
 * @property {string | undefined} directive  the directive's name (a key of DIRECTIVES)
 * @property {string | undefined} directiveText  the directive as written
 * @property {number | undefined} directiveLine  its 1-based line
 */

/**
 * Every fenced code block of `markdown`, in order.
 * @param {string} markdown
 * @returns {{ blocks: Block[], problems: string[] }} problems: unknown directives, unclosed fences (as `line: message`)
 */
export function extractBlocks(markdown) {
  const lines = markdown.split(/\r?\n/);
  const blocks = [];
  const problems = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i]);
    if (open === null) {
      if (DIRECTIVE.test(lines[i]) && !directiveFor(lines, i)) problems.push(`${i + 1}: a readme directive that precedes no code block`);
      continue;
    }
    const [, indent, fence, info] = open;
    if (fence[0] === '`' && info.includes('`')) continue; // not a fence (CommonMark: no backtick in a backtick info string)
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end])) end++;
    if (end >= lines.length) {
      problems.push(`${i + 1}: a code fence that is never closed`);
      break;
    }
    const body = lines.slice(i + 1, end).map((l) => (indent.length > 0 && l.startsWith(indent) ? l.slice(indent.length) : l));
    const block = {
      line: i + 1,
      codeLine: i + 2,
      lang: info.toLowerCase(),
      code: `${body.join('\n')}\n`,
      directive: undefined,
      directiveText: undefined,
      directiveLine: undefined,
    };
    const d = findDirective(lines, i);
    if (d !== undefined) {
      block.directiveText = d.text;
      block.directiveLine = d.line;
      block.directive = Object.keys(DIRECTIVES).find((name) => DIRECTIVES[name].test(d.text));
      if (block.directive === undefined) {
        problems.push(`${d.line}: unknown readme directive "${d.text}" (known: "typecheck-only: <why>", "with redis-server", "after the sh block above")`);
      } else if (!(block.lang in LANGUAGES)) {
        problems.push(`${d.line}: a readme directive before a \`\`\`${block.lang} block, which is not checked`);
      }
    }
    blocks.push(block);
    i = end;
  }
  return { blocks, problems };
}

/** The directive on the nearest non-blank line above line index `fenceIndex`, if any. */
function findDirective(lines, fenceIndex) {
  for (let j = fenceIndex - 1; j >= 0; j--) {
    if (lines[j].trim() === '') continue;
    const m = DIRECTIVE.exec(lines[j]);
    return m === null ? undefined : { text: m[1], line: j + 1 };
  }
  return undefined;
}

/** True when the directive at line index `i` is followed (after blank lines) by a fence. */
function directiveFor(lines, i) {
  for (let j = i + 1; j < lines.length; j++) {
    if (lines[j].trim() === '') continue;
    return OPEN.test(lines[j]);
  }
  return false;
}
