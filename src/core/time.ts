/** A clock: milliseconds since the Unix epoch. Injected everywhere so tests can drive time. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/** Accepts a Date or integer seconds since the epoch; returns integer seconds. */
export function toEpochSeconds(value: Date | number, what: string): number {
  const s = value instanceof Date ? Math.floor(value.getTime() / 1000) : value;
  if (!Number.isSafeInteger(s)) throw new TypeError(`${what} must be a Date or an integer number of seconds`);
  return s;
}
