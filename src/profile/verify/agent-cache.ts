/**
 * The Signature-Agent parse cache of one prepared options object: an agent sends
 * the same Signature-Agent on every request, so each distinct value is parsed once.
 */
import { BoundedMap } from '../../core/bounded-map';
import type { Diagnostic } from '../../core/diagnostics';
import { parseSignatureAgent } from '../signature-agent/parse';
import type { ParsedSignatureAgent, ParseSignatureAgentOptions, SignatureAgentMember } from '../signature-agent/types';

const AGENT_CACHE_MAX_ENTRIES = 256;
const AGENT_CACHE_MAX_CHARS = 4096;

/**
 * Parsed Signature-Agent values, keyed by the exact field lines, bounded in count
 * and size. Results are frozen: they are handed out in every result that binds them.
 * Owned by the prepared options (`verify/options.ts`), whose `allowHttp` rule it parses with.
 */
export class AgentCache {
  readonly options: ParseSignatureAgentOptions;
  /** Made on the first miss: options that never see a Signature-Agent allocate nothing. */
  private parsed: BoundedMap<string, ParsedSignatureAgent> | undefined = undefined;
  // The last single-line value and its parse, checked before the map (no key to build).
  private lastLine: string | undefined = undefined;
  private lastParsed: ParsedSignatureAgent | undefined = undefined;

  constructor(options: ParseSignatureAgentOptions) {
    this.options = options;
  }

  /** The parse of a Signature-Agent field given as its lines (frozen when cached). */
  get(lines: readonly string[]): ParsedSignatureAgent {
    const single = lines.length === 1 ? lines[0]! : undefined;
    if (single !== undefined && single === this.lastLine) return this.lastParsed!;
    const key = single !== undefined ? '1' + single : 'n' + JSON.stringify(lines);
    const cache = (this.parsed ??= new BoundedMap(AGENT_CACHE_MAX_ENTRIES));
    const hit = cache.get(key);
    if (hit !== undefined) {
      if (single !== undefined) this.remember(single, hit);
      return hit;
    }
    const parsed = parseSignatureAgent(lines, this.options);
    if (key.length > AGENT_CACHE_MAX_CHARS) return parsed;
    for (const m of parsed.members) {
      if (m.inline !== undefined) Object.freeze(m.inline);
      Object.freeze(m);
    }
    for (const d of parsed.diagnostics) Object.freeze(d);
    const frozen: ParsedSignatureAgent = Object.freeze({
      ...parsed,
      members: Object.freeze(parsed.members) as SignatureAgentMember[],
      diagnostics: Object.freeze(parsed.diagnostics) as Diagnostic[],
    });
    cache.set(key, frozen);
    if (single !== undefined) this.remember(single, frozen);
    return frozen;
  }

  private remember(line: string, parsed: ParsedSignatureAgent): void {
    this.lastLine = line;
    this.lastParsed = parsed;
  }
}
