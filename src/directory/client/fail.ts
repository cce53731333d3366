/** The errors the directory client raises for a URL, a fetch or a body. */
import { BotsigError, isBotsigError } from '../../core/errors';

export function fail(
  code: 'ERR_DIRECTORY_FETCH' | 'ERR_DIRECTORY_INVALID' | 'ERR_DIRECTORY_TOO_LARGE' | 'ERR_DIRECTORY_TIMEOUT' | 'ERR_URL_BLOCKED' | 'ERR_URL_INVALID',
  message: string,
  cause?: unknown,
): BotsigError {
  return new BotsigError(code, message, cause === undefined ? undefined : { cause });
}

/** `error` when it is already a BotsigError, else `ERR_DIRECTORY_FETCH` with `fallback` as the message. */
export function toBotsigError(error: unknown, fallback: string): BotsigError {
  if (isBotsigError(error)) return error;
  return fail('ERR_DIRECTORY_FETCH', fallback, error);
}
