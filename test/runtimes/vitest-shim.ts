/**
 * A small stand-in for the parts of `vitest` that the isomorphic test files use,
 * so the same files run unchanged in a browser or in workerd (test/runtimes/bundle.ts
 * aliases `vitest` to this module). Matchers are Vitest's own (`@vitest/expect` on
 * chai); only the runner is ours: describe/it/test (+ `.each`, `.skip`, `.todo`,
 * `.skipIf`, `.runIf`), beforeAll/afterAll/beforeEach/afterEach, per-test and
 * per-hook timeouts, `expect.assertions`/`expect.hasAssertions`.
 *
 * Semantics follow Vitest where the suite relies on them: a file's top-level
 * statements run first and only register suites; suite factories then run
 * (collection), in order, before any test; tests run one at a time in
 * declaration order; hooks returning a function get it called as teardown.
 */
import * as chai from 'chai';
import {
  ASYMMETRIC_MATCHERS_OBJECT,
  GLOBAL_EXPECT,
  JestAsymmetricMatchers,
  JestChaiExpect,
  JestExtend,
  customMatchers,
  getState,
  setState,
  type ExpectStatic,
  type MatcherState,
} from '@vitest/expect';

// ---------------------------------------------------------------------------
// expect

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

type AnyFn = (...args: never[]) => unknown;

function createExpect(): ExpectStatic {
  const fn = (value: unknown, message?: string): unknown => {
    const state = getState(expectImpl);
    setState({ assertionCalls: state.assertionCalls + 1 }, expectImpl);
    return chai.expect(value, message);
  };
  const expectImpl = fn as unknown as ExpectStatic;
  Object.assign(fn, chai.expect);
  Object.assign(fn, (globalThis as Record<PropertyKey, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);
  const ext = fn as unknown as Record<string, unknown>;
  ext['getState'] = () => getState(expectImpl);
  ext['setState'] = (state: Partial<MatcherState>) => setState(state, expectImpl);
  ext['extend'] = (matchers: Record<string, AnyFn>) => (chai.expect as unknown as { extend: (e: unknown, m: unknown) => void }).extend(expectImpl, matchers);
  ext['unreachable'] = (message?: string) => {
    chai.assert.fail(`expected${message ? ` "${message}" ` : ' '}not to be reached`);
  };
  ext['assertions'] = (n: number) => setState({ expectedAssertionsNumber: n }, expectImpl);
  ext['hasAssertions'] = () => setState({ isExpectingAssertions: true }, expectImpl);
  ext['soft'] = fn;
  setState(
    {
      assertionCalls: 0,
      isExpectingAssertions: false,
      isExpectingAssertionsError: null,
      expectedAssertionsNumber: null,
      expectedAssertionsNumberErrorGen: null,
    } as unknown as Partial<MatcherState>,
    expectImpl,
  );
  expectImpl.extend(customMatchers);
  return expectImpl;
}

export const expect: ExpectStatic = createExpect();
Object.defineProperty(globalThis, GLOBAL_EXPECT, { value: expect, writable: true, configurable: true });

// ---------------------------------------------------------------------------
// Registration

type Body = () => unknown;
type Mode = 'run' | 'skip' | 'todo';

interface TestNode {
  kind: 'test';
  name: string;
  fn: Body | undefined;
  mode: Mode;
  timeout: number | undefined;
}

interface Hook {
  fn: Body;
  timeout: number | undefined;
}

interface SuiteNode {
  kind: 'suite';
  name: string;
  factory: Body | undefined;
  mode: Mode;
  children: Array<TestNode | SuiteNode>;
  beforeAll: Hook[];
  afterAll: Hook[];
  beforeEach: Hook[];
  afterEach: Hook[];
}

const DEFAULT_TEST_TIMEOUT = 20_000;
const DEFAULT_HOOK_TIMEOUT = 30_000;

function newSuite(name: string, factory: Body | undefined, mode: Mode): SuiteNode {
  return { kind: 'suite', name, factory, mode, children: [], beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] };
}

/** Where describe/it/hooks register now: a file's root while it loads, then each suite while it collects. */
let current: SuiteNode | undefined;

function target(what: string): SuiteNode {
  if (current === undefined) throw new Error(`${what}() called outside a test file or suite`);
  return current;
}

type TimeoutArg = number | { timeout?: number } | undefined;
function timeoutOf(t: TimeoutArg): number | undefined {
  return typeof t === 'number' ? t : t?.timeout;
}

/** Vitest's `it(name, fn, timeout)` and `it(name, options, fn)`. */
function normalise(a: Body | TimeoutArg, b: Body | TimeoutArg): { fn: Body | undefined; timeout: number | undefined } {
  if (typeof a === 'function') return { fn: a, timeout: timeoutOf(b as TimeoutArg) };
  return { fn: b as Body | undefined, timeout: timeoutOf(a) };
}

function display(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'function') return v.name || 'function';
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `Uint8Array[${v.length}]`;
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s.length > 80 ? s.slice(0, 77) + '...' : s;
  } catch {
    return String(v);
  }
}

/** Vitest's `.each` title formatting: %s %d %i %f %j %o %O %# %$ %% and `$key` for object rows. */
export function formatTitle(template: string, row: unknown, index: number): string {
  const args = Array.isArray(row) ? row : [row];
  let i = 0;
  let out = template.replace(/%[sdifjoO#$%]/g, (m) => {
    if (m === '%%') return '%';
    if (m === '%#') return String(index);
    if (m === '%$') return String(index + 1);
    const v = args[i++];
    if (m === '%d' || m === '%i') return String(m === '%i' ? Math.trunc(Number(v)) : Number(v));
    if (m === '%f') return String(Number(v));
    if (m === '%s') return display(v);
    return display(v);
  });
  if (!Array.isArray(row) && row !== null && typeof row === 'object') {
    out = out.replace(/\$([A-Za-z_][\w.]*)/g, (m, key: string) => {
      let v: unknown = row;
      for (const k of key.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
      return v === undefined ? m : display(v);
    });
  }
  return out;
}

type EachFn = (...args: never[]) => unknown;

function makeTest(mode: Mode) {
  return (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg): void => {
    const { fn, timeout } = normalise(a, b);
    target('it').children.push({ kind: 'test', name, fn, mode: fn === undefined && mode === 'run' ? 'todo' : mode, timeout });
  };
}

function makeSuite(mode: Mode) {
  return (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg): void => {
    const { fn } = normalise(a, b);
    target('describe').children.push(newSuite(name, fn, mode));
  };
}

interface Api {
  (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg): void;
  skip: (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg) => void;
  todo: (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg) => void;
  only: (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg) => void;
  skipIf: (cond: unknown) => (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg) => void;
  runIf: (cond: unknown) => (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg) => void;
  each: (rows: readonly unknown[]) => (name: string, fn: EachFn, timeout?: TimeoutArg) => void;
}

function makeApi(make: (mode: Mode) => (name: string, a?: Body | TimeoutArg, b?: Body | TimeoutArg) => void): Api {
  const run = make('run');
  const skip = make('skip');
  const api = run as Api;
  api.skip = skip;
  api.todo = make('todo');
  api.only = () => {
    throw new Error('.only is not supported in the runtime matrix (and should not be committed)');
  };
  api.skipIf = (cond) => (cond ? skip : run);
  api.runIf = (cond) => (cond ? run : skip);
  api.each = (rows) => (name, fn, timeout) => {
    rows.forEach((row, index) => {
      const args = (Array.isArray(row) ? row : [row]) as never[];
      run(formatTitle(name, row, index), () => fn(...args), timeout);
    });
  };
  return api;
}

export const it: Api = makeApi(makeTest);
export const test: Api = it;
export const describe: Api = makeApi(makeSuite);
export const suite: Api = describe;

export function beforeAll(fn: Body, timeout?: number): void {
  target('beforeAll').beforeAll.push({ fn, timeout });
}
export function afterAll(fn: Body, timeout?: number): void {
  target('afterAll').afterAll.push({ fn, timeout });
}
export function beforeEach(fn: Body, timeout?: number): void {
  target('beforeEach').beforeEach.push({ fn, timeout });
}
export function afterEach(fn: Body, timeout?: number): void {
  target('afterEach').afterEach.push({ fn, timeout });
}

// ---------------------------------------------------------------------------
// Running

export interface Failure {
  file: string;
  name: string;
  message: string;
  stack?: string;
}

export interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
}

export interface RunResult {
  passed: number;
  failed: number;
  skipped: number;
  files: FileResult[];
  failures: Failure[];
  durationMs: number;
}

export interface RunOptions {
  /** Run only tests whose full name contains this text. */
  filter?: string;
  /** Called after each file, e.g. to stream progress. */
  onFile?: (r: FileResult) => void;
}

class Timeout extends Error {}

async function withTimeout(fn: Body, ms: number, what: string): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(fn), limit]);
  } finally {
    clearTimeout(timer);
  }
}

function describeError(e: unknown): { message: string; stack?: string } {
  if (e instanceof Error) {
    let message = `${e.name}: ${e.message}`;
    const a = e as Error & { actual?: unknown; expected?: unknown; showDiff?: boolean };
    if (a.showDiff === true) message += `\n  expected: ${display(a.expected)}\n  actual:   ${display(a.actual)}`;
    const out: { message: string; stack?: string } = { message };
    if (e.stack !== undefined) out.stack = e.stack.split('\n').slice(0, 12).join('\n');
    return out;
  }
  return { message: `thrown non-Error: ${display(e)}` };
}

async function collect(s: SuiteNode): Promise<void> {
  if (s.factory === undefined) return;
  const previous = current;
  current = s;
  try {
    await s.factory();
  } finally {
    current = previous;
  }
  for (const c of s.children) if (c.kind === 'suite') await collect(c);
}

interface Ctx {
  file: string;
  result: FileResult;
  failures: Failure[];
  filter: string | undefined;
}

function countRunnable(s: SuiteNode, path: string[], filter: string | undefined): number {
  if (s.mode !== 'run') return 0;
  let n = 0;
  for (const c of s.children) {
    if (c.kind === 'suite') n += countRunnable(c, [...path, c.name], filter);
    else if (c.mode === 'run' && (filter === undefined || [...path, c.name].join(' > ').includes(filter))) n++;
  }
  return n;
}

function fail(ctx: Ctx, name: string, e: unknown): void {
  ctx.result.failed++;
  ctx.failures.push({ file: ctx.file, name, ...describeError(e) });
}

function skipAll(ctx: Ctx, s: SuiteNode): void {
  for (const c of s.children) {
    if (c.kind === 'suite') skipAll(ctx, c);
    else ctx.result.skipped++;
  }
}

async function runHook(h: Hook, what: string): Promise<(() => unknown) | undefined> {
  const r = await withTimeout(h.fn, h.timeout ?? DEFAULT_HOOK_TIMEOUT, what);
  return typeof r === 'function' ? (r as () => unknown) : undefined;
}

async function runTest(ctx: Ctx, t: TestNode, chain: SuiteNode[], path: string[]): Promise<void> {
  const full = [...path, t.name].join(' > ');
  if (t.mode !== 'run' || t.fn === undefined) {
    ctx.result.skipped++;
    return;
  }
  if (ctx.filter !== undefined && !full.includes(ctx.filter)) {
    ctx.result.skipped++;
    return;
  }
  setState(
    { assertionCalls: 0, isExpectingAssertions: false, expectedAssertionsNumber: null, currentTestName: full } as unknown as Partial<MatcherState>,
    expect,
  );
  const teardowns: Array<() => unknown> = [];
  let error: unknown;
  let failed = false;
  try {
    for (const s of chain)
      for (const h of s.beforeEach) {
        const td = await runHook(h, `beforeEach of ${full}`);
        if (td !== undefined) teardowns.unshift(td);
      }
    await withTimeout(t.fn, t.timeout ?? DEFAULT_TEST_TIMEOUT, full);
    const st = getState(expect) as MatcherState & { expectedAssertionsNumber: number | null };
    if (st.expectedAssertionsNumber !== null && st.expectedAssertionsNumber !== st.assertionCalls) {
      throw new Error(`expected number of assertions to be ${st.expectedAssertionsNumber}, but got ${st.assertionCalls}`);
    }
    if (st.isExpectingAssertions && st.assertionCalls === 0) throw new Error('expected any number of assertion, but got none');
  } catch (e) {
    failed = true;
    error = e;
  }
  // Vitest's default (sequence.hooks "stack"): afterEach inner suite first, each suite's
  // in reverse order, then the teardowns returned by beforeEach.
  const after: Body[] = [];
  for (const s of [...chain].reverse()) for (const h of [...s.afterEach].reverse()) after.push(h.fn);
  for (const td of [...after, ...teardowns]) {
    try {
      await withTimeout(td, DEFAULT_HOOK_TIMEOUT, `afterEach of ${full}`);
    } catch (e) {
      if (!failed) {
        failed = true;
        error = e;
      }
    }
  }
  if (failed) fail(ctx, full, error);
  else ctx.result.passed++;
}

async function runSuite(ctx: Ctx, s: SuiteNode, chain: SuiteNode[], path: string[]): Promise<void> {
  if (countRunnable(s, path, ctx.filter) === 0) {
    skipAll(ctx, s);
    return;
  }
  const here = [...chain, s];
  const teardowns: Array<() => unknown> = [];
  let setupError: unknown;
  let setupFailed = false;
  try {
    for (const h of s.beforeAll) {
      const td = await runHook(h, `beforeAll of ${path.join(' > ')}`);
      if (td !== undefined) teardowns.unshift(td);
    }
  } catch (e) {
    setupFailed = true;
    setupError = e;
  }
  if (setupFailed) {
    fail(ctx, `${path.join(' > ')} (beforeAll)`, setupError);
    skipAll(ctx, s);
  } else {
    for (const c of s.children) {
      if (c.kind === 'suite') await runSuite(ctx, c, here, [...path, c.name]);
      else await runTest(ctx, c, here, path);
    }
  }
  const after = [...s.afterAll].reverse().map((h) => h.fn);
  for (const td of [...after, ...teardowns]) {
    try {
      await withTimeout(td, DEFAULT_HOOK_TIMEOUT, `afterAll of ${path.join(' > ')}`);
    } catch (e) {
      fail(ctx, `${path.join(' > ')} (afterAll)`, e);
    }
  }
}

/** The test files of a bundle: each name with a loader that evaluates the file (registering its suites). */
export type TestFileLoader = readonly [file: string, load: () => Promise<unknown>];

/**
 * Loads and runs test files one after the other and reports the totals.
 * Failures to load or collect a file count as one failure of that file.
 */
export async function runFiles(files: readonly TestFileLoader[], options: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  const failures: Failure[] = [];
  const results: FileResult[] = [];
  for (const [file, load] of files) {
    const result: FileResult = { file, passed: 0, failed: 0, skipped: 0 };
    const ctx: Ctx = { file, result, failures, filter: options.filter };
    const root = newSuite(file, undefined, 'run');
    current = root;
    try {
      await load();
      for (const c of root.children) if (c.kind === 'suite') await collect(c);
    } catch (e) {
      current = undefined;
      fail(ctx, `${file} (load/collect)`, e);
      results.push(result);
      options.onFile?.(result);
      continue;
    }
    current = undefined;
    await runSuite(ctx, root, [], [file]);
    results.push(result);
    options.onFile?.(result);
  }
  const sum = (k: 'passed' | 'failed' | 'skipped') => results.reduce((n, r) => n + r[k], 0);
  return { passed: sum('passed'), failed: sum('failed'), skipped: sum('skipped'), files: results, failures, durationMs: Date.now() - started };
}
