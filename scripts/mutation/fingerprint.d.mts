/** The fingerprint of `text`, the source of `fileName`: 16 hex digits of a SHA-256 over its code without comments, layout or imports. */
export function codeFingerprint(text: string, fileName?: string): string;
