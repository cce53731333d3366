/**
 * The shapes a signature's metadata takes once read (RFC 9421 §2.3, §4.1, §4.2): shared
 * by the Signature-Input parser and serialiser (`signature-input.ts`), the direct reader
 * of received fields (`signature-fields-reader.ts`) and the signature base (`base.ts`). Types only.
 */
import type { BotsigError } from '../core/errors';
import type { Parameters } from '../core/sf-types';
import type { ComponentIdentifier } from './component-id';

/** One signature's metadata: its label, covered components and parameters, all in order. */
export interface SignatureInput {
  label: string;
  components: ComponentIdentifier[];
  /** Every signature parameter in its order, unknown ones included (RFC 9421 §2.3). */
  params: Parameters;
}

/**
 * Internal (verification hot path): a {@link SignatureInput} as `readSignaturesWithTexts`
 * gives it. When the direct reader (`signature-fields-reader.ts`) read it, it also carries the text
 * it was received in, which that reader accepts only in canonical form, i.e.
 * byte-identical to what serialising the parsed structure gives (RFC 9421 §2.3, §2.5),
 * and the typed view of its parameters. An input the general parser read has neither:
 * its base is built by serialising it.
 */
export interface ReceivedSignatureInput extends SignatureInput {
  /** `@signature-params` (the member after `label=`) as received; present only when canonical. */
  readonly paramsText?: string;
  /** Each component identifier as received; present exactly when `paramsText` is. */
  readonly idTexts?: string[];
  /** The typed view of `params`, when the reader built it already (equal to `signatureParams(params)`). */
  readonly view?: SignatureParams;
}

/** Typed view of the registered signature parameters (RFC 9421 §2.3). */
export interface SignatureParams {
  created?: number;
  expires?: number;
  nonce?: string;
  alg?: string;
  keyid?: string;
  tag?: string;
}

/**
 * One label found in a message's Signature-Input and Signature fields. A label found
 * in only one of them, or whose member has the wrong shape, carries an `error`, so that
 * one bad signature does not hide the others (RFC 9421 §4, §7.2.6).
 */
export type SignatureEntry<I extends SignatureInput = SignatureInput> =
  | { readonly label: string; readonly ok: true; readonly input: I; readonly signature: Uint8Array }
  | {
      readonly label: string;
      readonly ok: false;
      readonly error: BotsigError;
      readonly input?: I;
      readonly signature?: Uint8Array;
    };
