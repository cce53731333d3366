/** The default components of a response signature (a constant apart, so that importing it loads nothing else). */

/**
 * Components a response signature covers by default: the status, the response content
 * (through `content-digest`), and the request it answers (RFC 9421 §2.4: method,
 * authority, path and query with `;req`). Binding the answer to the request's own
 * signature (`"signature";req;key="sig1"`) is stronger but needs the agent to verify
 * with the request exactly as sent (its signature headers included): ask for it in
 * `components` where the agent can.
 */
export const DEFAULT_RESPONSE_COMPONENTS: readonly string[] = /* @__PURE__ */ Object.freeze([
  '"@status"',
  '"content-digest"',
  '"@method";req',
  '"@authority";req',
  '"@path";req',
  '"@query";req',
]);
