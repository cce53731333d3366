/**
 * The per-signature profile checks that need no key: the tag, freshness, coverage
 * (SPEC 5.1, NOTES "Signing profile"), the origin's authorities, and which
 * Signature-Agent members a signature binds (SPEC 5.2).
 */
import { RFC9421_TEST_KEY_THUMBPRINTS } from '../../crypto/rfc9421-example-key-ids';
import { messageTarget } from '../../httpsig/message';
import { serializeComponentIdentifier } from '../../httpsig/components';
import { chainGap, coversComponent } from '../../httpsig/cover-chain';
import type { ReceivedSignatureInput, SignatureInput } from '../../httpsig/signature-input';
import type { ParsedSignatureAgent, SignatureAgentMember } from '../signature-agent/types';
import { WEB_BOT_AUTH_TAG, type SignatureParamsView, type SignatureResult } from '../types';
import { fail, type Draft } from './result';
import { NO_STRINGS, type Context, type TagPrepared } from './state';

/**
 * Members of a Signature-Agent covered whole (first revision's String form, SPEC
 * 2.3) tried in order against the directory; bounds the fetches one request causes.
 */
const MAX_AGENT_CANDIDATES = 4;
const NO_MEMBERS: readonly SignatureAgentMember[] = /* @__PURE__ */ Object.freeze([]);

// A Set rather than an own-property check: the keyid's hash, computed here once, serves
// the key lookups that follow (a property check would look the string up for internalising).
const TEST_KEYIDS: ReadonlySet<string> = new Set(Object.keys(RFC9421_TEST_KEY_THUMBPRINTS));

/** Whether a keyid is the thumbprint of an RFC 9421 Appendix B.1 example key (keys are matched by thumbprint = keyid). */
export function isTestKeyid(keyid: string): boolean {
  return TEST_KEYIDS.has(keyid);
}

/**
 * Freshness (SPEC 5.1: created and expires are required). Both are whole seconds,
 * so the clock is compared at that resolution: a signature created during the
 * current second is not "in the future", and one expiring during it has not expired.
 * `undefined` when fresh.
 */
export function checkFreshness(d: Draft, params: SignatureParamsView, ctx: Context): SignatureResult | undefined {
  const p = ctx.p;
  const label = d.label;
  const { created, expires } = params;
  if (created === undefined) return fail(d, 'invalid', 'ERR_CREATED_MISSING', `signature "${label}" has no created parameter`);
  if (expires === undefined) return fail(d, 'invalid', 'ERR_EXPIRES_MISSING', `signature "${label}" has no expires parameter`);
  if (created > Math.ceil(ctx.nowMs / 1000) + p.skewSeconds) {
    return fail(d, 'invalid', 'ERR_CREATED_IN_FUTURE', `signature "${label}" was created in the future`);
  }
  if (expires < Math.floor(ctx.nowMs / 1000) - p.skewSeconds) return fail(d, 'invalid', 'ERR_SIGNATURE_EXPIRED', `signature "${label}" has expired`);
  if (expires < created) return fail(d, 'invalid', 'ERR_PARAM_INVALID', `signature "${label}" expires before it was created`);
  const maxValidity = d.rules === undefined ? p.maxValiditySeconds : d.rules.maxValiditySeconds;
  if (expires - created > maxValidity) {
    return fail(d, 'invalid', 'ERR_VALIDITY_TOO_LONG', `signature "${label}" is valid for longer than ${maxValidity} s`);
  }
  return undefined;
}

export function taggedWebBotAuth(input: ReceivedSignatureInput): boolean {
  if (input.view !== undefined) return input.view.tag === WEB_BOT_AUTH_TAG;
  const tag = input.params.get('tag');
  return tag !== undefined && tag.type === 'string' && tag.value === WEB_BOT_AUTH_TAG;
}

/** With a profile (`options.profile`): the rules of the signature's tag, `undefined` when the profile has none for it. */
export function tagRulesOf(input: ReceivedSignatureInput, tags: ReadonlyMap<string, TagPrepared>): TagPrepared | undefined {
  if (input.view !== undefined) return input.view.tag === undefined ? undefined : tags.get(input.view.tag);
  const tag = input.params.get('tag');
  return tag !== undefined && tag.type === 'string' ? tags.get(tag.value) : undefined;
}

/** Whether the request's `@authority` (the host of `@target-uri`: the same value) is the origin's own. */
export function authorityAllowed(ctx: Context): boolean {
  if (ctx.authorityAllowed === undefined) {
    let authority: string | undefined;
    try {
      authority = messageTarget(ctx.message).authority;
    } catch {
      // No target URI: no authority (it stays undefined).
    }
    ctx.authorityAllowed = authority !== undefined && ctx.p.authorities!.has(authority);
  }
  return ctx.authorityAllowed;
}

export function coveredOf(input: ReceivedSignatureInput): readonly string[] {
  const n = input.components.length;
  if (n === 0) return NO_STRINGS;
  // As received when canonical: the same strings (frozen, shared by the inputs that repeat them).
  if (input.idTexts !== undefined) return input.idTexts;
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = serializeComponentIdentifier(input.components[i]!);
  return out;
}

/**
 * SPEC 5.1 / NOTES: `@authority` (or `@target-uri` unless strict) covered, the
 * configured components covered, and a covered signature (`"signature";key=X`)
 * accompanied by `"signature-input";key=X` and every component X covers.
 */
export function checkCoverage(
  input: SignatureInput,
  covered: readonly string[],
  ctx: Context,
  strict: boolean,
  required: readonly string[] = ctx.p.required,
): string | undefined {
  const label = input.label;
  let authority = false;
  let targetUri = false;
  let coversSignature = false;
  // Indexed loops: the arrays here may be frozen (shared), where for-of allocates an iterator.
  const components = input.components;
  for (let i = 0; i < components.length; i++) {
    const name = components[i]!.name;
    if (name === '@authority') authority = true;
    else if (name === '@target-uri') targetUri = true;
    // A shortcut, as coversSignature above (the mutant making this test true is equivalent, but its
    // false twin on the same line is killed: no line-level mark).
    else if (name === 'signature') coversSignature = true;
  }
  if (!authority && (strict || !targetUri)) return `signature "${label}" covers neither @authority${strict ? '' : ' nor @target-uri'}`;
  for (let i = 0; i < required.length; i++) {
    if (!coversComponent(covered, components, required[i]!)) return `signature "${label}" does not cover ${required[i]!}`;
  }
  if (!coversSignature) return undefined;
  // A request has no `;req` to follow: a signature it names that way is not on it.
  return chainGap(label, components, (key, req) => (req ? undefined : ctx.entries.get(key)?.input));
}

/**
 * The Signature-Agent members a signature binds, in the order to try them, or
 * `undefined` when the header is present and the signature covers none of it.
 * - `"signature-agent";key="K"`: the member keyed K (whatever the label: the draft
 *   signs label `sig2` over member `agent2`).
 * - `"signature-agent"` (the whole field, earlier revisions): the signer vouched for
 *   every value; they are tried in the field's order, the first that yields the key wins
 *   (SPEC 2.3). That order is signed; the label is not (RFC 9421 §7.2.5), so it does not
 *   choose: a relabelled copy of a request is attributed to the same agent, and its nonce
 *   is a replay in the same scope.
 * A component read from the trailers (`tr`) or from another message (`req`) does not cover
 * this request's header: the members named there are not bound.
 * An empty list means nothing usable is bound (no header, or the member was dropped).
 */
export function agentCandidates(input: SignatureInput, header: ParsedSignatureAgent | undefined): readonly SignatureAgentMember[] | undefined {
  let whole = false;
  let memberKey: string | undefined;
  let covers = false;
  const components = input.components;
  for (let i = 0; i < components.length; i++) {
    const c = components[i]!;
    if (c.name !== 'signature-agent' || c.params.has('tr') || c.params.has('req')) continue;
    covers = true;
    const key = c.params.get('key');
    if (key === undefined) whole = true;
    else if (key.type === 'string' && memberKey === undefined) memberKey = key.value;
  }
  if (header === undefined) return NO_MEMBERS;
  if (!covers) return undefined;
  const members = header.members;
  if (members.length === 0) return NO_MEMBERS;
  if (memberKey !== undefined) {
    // The common case, a header of one member, the one covered: its (frozen) member list is the answer.
    if (members.length === 1 && members[0]!.key === memberKey) return members;
    const m = memberByKey(header, memberKey);
    if (m !== undefined) return [m];
    if (!whole) return NO_MEMBERS;
  }
  return members.length <= MAX_AGENT_CANDIDATES ? members : members.slice(0, MAX_AGENT_CANDIDATES);
}

// A request with thousands of signatures and members must not cost signatures × members.
const MEMBER_INDEX_THRESHOLD = 8;
// An index hangs off the (frozen) parsed header it indexes and lives as long as it: a
// header cached by its options' AgentCache is indexed once for all its requests.
const memberIndexes = new WeakMap<ParsedSignatureAgent, Map<string, SignatureAgentMember>>();

/** The first member keyed `key` (a header parsed once per request, indexed once when large). */
function memberByKey(header: ParsedSignatureAgent, key: string): SignatureAgentMember | undefined {
  const members = header.members;
  if (members.length <= MEMBER_INDEX_THRESHOLD) {
    for (const m of members) if (m.key === key) return m;
    return undefined;
  }
  let index = memberIndexes.get(header);
  if (index === undefined) {
    index = new Map();
    for (const m of members) if (m.key !== undefined && !index.has(m.key)) index.set(m.key, m);
    memberIndexes.set(header, index);
  }
  return index.get(key);
}
