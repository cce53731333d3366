// Types of extract.mjs, for the tests (test/readme/readme.test.ts).
export declare const LANGUAGES: Readonly<Record<string, '.mts' | '.mjs'>>;
export declare const DIRECTIVES: Readonly<Record<'typecheck-only' | 'with-redis-server' | 'after-sh-block', RegExp>>;

export interface Block {
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** 1-based line of the block's first code line. */
  readonly codeLine: number;
  /** The fence's language, lowercase. */
  readonly lang: string;
  /** The block's text (ends with a newline). */
  readonly code: string;
  /** The directive's name, when one precedes the block and is known. */
  readonly directive: keyof typeof DIRECTIVES | undefined;
  /** The directive as written. */
  readonly directiveText: string | undefined;
  /** Its 1-based line. */
  readonly directiveLine: number | undefined;
}

/** Every fenced code block of `markdown`, in order; problems as `line: message`. */
export declare function extractBlocks(markdown: string): { blocks: Block[]; problems: string[] };
