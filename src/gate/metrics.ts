/**
 * The gate's Prometheus metrics (prom-client, its own registry). The verification,
 * directory-lookup and nonce-store numbers come from the verifier's event hooks
 * (`onVerification`, `onDirectoryLookup`, `onNonceCheck`: what an Express app can
 * export too); directory fetches are counted by the gate's fetch, and the gate
 * adds its own answers, requests in flight and reloads.
 *
 * Labels take values from closed sets only (outcomes, botsig error codes, HTTP
 * statuses, endpoint names): never an agent URL, a host or a path, so the number of
 * series stays bounded whatever strangers send.
 */
import type { Registry } from 'prom-client';
import type { DirectoryLookupEvent, NonceCheckEvent, VerificationEvent } from '../verifier';

/** Seconds: 0.1 ms … 5 s (a directory fetch is bounded by its 5 s deadline). */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface GateMetrics {
  readonly registry: Registry;
  onVerification(event: VerificationEvent): void;
  onDirectoryLookup(event: DirectoryLookupEvent): void;
  onNonceCheck(event: NonceCheckEvent): void;
  /** One directory exchange by the gate's fetch: `ok` (any HTTP answer below 400), `http_error`, `error` (network, timeout, refused). */
  directoryFetch(result: 'ok' | 'http_error' | 'error', seconds: number): void;
  /** One answer of the gate. */
  answered(endpoint: 'auth' | 'envoy', status: number, seconds: number): void;
  inFlight(delta: 1 | -1): void;
  reload(result: 'ok' | 'failed'): void;
  /** The Prometheus text format. */
  text(): Promise<string>;
  readonly contentType: string;
}

/**
 * Creates the metrics on a new registry (with Node's process metrics, `process_*` and `nodejs_*`).
 * prom-client is loaded here, on first use, not when the `botsig` command starts (the other commands never need it).
 */
export async function createGateMetrics(): Promise<GateMetrics> {
  const { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } = await import('prom-client');
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const verifications = new Counter({
    name: 'botsig_verifications_total',
    help: 'Verifications by outcome and botsig error code ("none" when verified).',
    labelNames: ['outcome', 'code'] as const,
    registers,
  });
  const verificationSeconds = new Histogram({
    name: 'botsig_verification_duration_seconds',
    help: 'Time spent verifying a request (key lookup, signature, nonce check), by outcome (SPEC 5.3 rule 9).',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const lookups = new Counter({
    name: 'botsig_directory_lookups_total',
    help: 'Key directory lookups: fresh (in-process cache hit), resolved (fetch, revalidation, shared cache or a fetch in flight), failed.',
    labelNames: ['result'] as const,
    registers,
  });
  const lookupErrors = new Counter({
    name: 'botsig_directory_lookup_errors_total',
    help: 'Failed key directory lookups by botsig error code.',
    labelNames: ['code'] as const,
    registers,
  });
  const fetches = new Counter({
    name: 'botsig_directory_fetches_total',
    help: 'HTTP exchanges with key directories (and their JWK Sets): ok, http_error (status 400 and above), error (network, timeout, refused address).',
    labelNames: ['result'] as const,
    registers,
  });
  const fetchSeconds = new Histogram({
    name: 'botsig_directory_fetch_duration_seconds',
    help: 'Duration of directory fetches (headers received).',
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const nonceChecks = new Counter({
    name: 'botsig_nonce_checks_total',
    help: 'Nonce-store checks: new, replay, refused (per-agent quota, length), error (the store could not answer).',
    labelNames: ['result'] as const,
    registers,
  });
  const nonceSeconds = new Histogram({
    name: 'botsig_nonce_store_duration_seconds',
    help: 'Nonce-store latency per check.',
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const nonceErrors = new Counter({
    name: 'botsig_nonce_store_errors_total',
    help: 'Nonce-store checks that failed or were refused, by botsig error code.',
    labelNames: ['code'] as const,
    registers,
  });
  const answers = new Counter({
    name: 'botsig_gate_responses_total',
    help: 'Answers of the gate by endpoint and HTTP status.',
    labelNames: ['endpoint', 'status'] as const,
    registers,
  });
  const answerSeconds = new Histogram({
    name: 'botsig_gate_response_duration_seconds',
    help: 'Time from the auth request to the gate answer.',
    labelNames: ['endpoint'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const inFlight = new Gauge({ name: 'botsig_gate_requests_in_flight', help: 'Auth requests being judged.', registers });
  const reloads = new Counter({
    name: 'botsig_gate_config_reloads_total',
    help: 'Configuration reloads (SIGHUP) by result.',
    labelNames: ['result'] as const,
    registers,
  });

  return {
    registry,
    contentType: registry.contentType,
    onVerification(event) {
      verifications.inc({ outcome: event.outcome, code: event.code ?? 'none' });
      verificationSeconds.observe({ outcome: event.outcome }, event.latencyMs / 1000);
    },
    onDirectoryLookup(event) {
      lookups.inc({ result: event.result });
      if (event.result === 'failed') lookupErrors.inc({ code: event.code ?? 'unknown' });
    },
    onNonceCheck(event) {
      nonceChecks.inc({ result: event.result });
      nonceSeconds.observe(event.latencyMs / 1000);
      if (event.result === 'error' || event.result === 'refused') nonceErrors.inc({ code: event.code ?? 'ERR_NONCE_STORE_UNAVAILABLE' });
    },
    directoryFetch(result, seconds) {
      fetches.inc({ result });
      fetchSeconds.observe(seconds);
    },
    answered(endpoint, status, seconds) {
      answers.inc({ endpoint, status: String(status) });
      answerSeconds.observe({ endpoint }, seconds);
    },
    inFlight(delta) {
      inFlight.inc(delta);
    },
    reload(result) {
      reloads.inc({ result });
    },
    text: () => registry.metrics(),
  };
}
