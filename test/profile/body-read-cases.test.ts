/**
 * Pins for reading message content with a size cap (src/profile/body/read.ts, RFC 9530
 * content for `Content-Digest`) that the mutation run showed unpinned (issue 20): what each
 * refusal says, the cap at exactly `maxBytes` for every body form, a declared
 * `Content-Length` (refused before reading only when it is a plain number above the cap),
 * views into a larger buffer, streams of `ArrayBuffer`/view chunks, a stream released after
 * it was read, and the stream that replaces a body signing read.
 */
import { describe, expect, it } from 'vitest';
import { BotsigError } from '../../src/index';
import { toHttpMessage } from '../../src/httpsig';
import { concat, readBodyValue, readMessageBody, replayStream } from '../../src/profile/body/read';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** The bytes as text, or `code: message` of the BotsigError the read rejected with. */
async function read(input: unknown, max: number): Promise<string> {
  try {
    return dec.decode(await readMessageBody(input, max));
  } catch (error) {
    if (error instanceof BotsigError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

const tooLarge = (max: number): string => `ERR_BODY_TOO_LARGE: the message content is larger than the ${max}-byte limit (maxBodyBytes)`;
const unavailable = (why: string): string => `ERR_BODY_UNAVAILABLE: the message content cannot be read: ${why}`;

function chunks(parts: readonly unknown[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= parts.length) return controller.close();
      controller.enqueue(parts[i++] as Uint8Array);
    },
  });
}

/** A fetch-shaped body holder (clone, body, bodyUsed, headers) under the test's control. */
function fetchLike(body: ReadableStream<Uint8Array> | null, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): object {
  const self = {
    body,
    bodyUsed: false,
    headers: new Headers(headers),
    clone: () => ({ ...self }),
    ...extra,
  };
  return self;
}

describe('readMessageBody: what can be read', () => {
  it('no content to read: not an object, null, an HttpMessage (already parsed, its body is gone), an object without body', async () => {
    const none = unavailable('no body was given with the message');
    for (const input of ['text', 42, null, undefined, toHttpMessage({ method: 'POST', url: 'https://a.example/', headers: {} }), { headers: {} }]) {
      expect(await read(input, 100)).toBe(none);
    }
  });

  it('a Request whose body was already read, and one that cannot be cloned, say so', async () => {
    const used = new Request('https://a.example/', { method: 'POST', body: 'abc' });
    await used.text();
    expect(await read(used, 100)).toBe(unavailable('the body was already read'));
    const cause = new TypeError('locked');
    const locked = fetchLike(
      chunks([enc.encode('abc')]),
      {},
      {
        clone: () => {
          throw cause;
        },
      },
    );
    const error = await readMessageBody(locked, 100).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'ERR_BODY_UNAVAILABLE',
      message: 'the message content cannot be read: the message cannot be cloned (its body is locked or used)',
      cause,
    });
  });

  it('an object is read as a Request/Response only with all of clone(), a boolean bodyUsed, body and headers', async () => {
    // Each of these lacks one of the four: its `body` is read as a message object's body.
    const partial = [
      { body: 'abc', bodyUsed: false, headers: new Headers() },
      { body: 'abc', clone: () => undefined, headers: new Headers() },
      { body: 'abc', clone: () => undefined, bodyUsed: false },
      { body: 'abc', clone: () => undefined, bodyUsed: false, headers: null },
      { body: 'abc', clone: () => undefined, bodyUsed: 'no', headers: new Headers() },
    ];
    for (const input of partial) expect(await read(input, 100)).toBe('abc');
    // A body member that is undefined is no content (as null), from the object or from its reader.
    expect(await read({ body: undefined }, 0)).toBe('');
    expect(await read({ body: () => undefined }, 0)).toBe('');
    // A fetch-shaped object without a body member is not a Request: it has no content to read.
    expect(await read({ clone: () => undefined, bodyUsed: false, headers: new Headers() }, 100)).toBe(unavailable('no body was given with the message'));
  });

  it('a Response without content (body null) is empty, whatever Content-Length it declares (a HEAD response)', async () => {
    expect(await read(new Response(null, { headers: { 'content-length': '1000' } }), 10)).toBe('');
    expect(await read(fetchLike(null, { 'content-length': '1000' }), 10)).toBe('');
  });

  it('a declared Content-Length is refused before reading only above the cap, and only when it is a plain number', async () => {
    let cloned = 0;
    const counted = (length: string, body: string): object => {
      const holder = fetchLike(chunks([enc.encode(body)]), { 'content-length': length });
      const clone = (holder as { clone: () => object }).clone;
      return Object.assign(holder, {
        clone: () => {
          cloned++;
          return clone();
        },
      });
    };
    expect(await read(counted('11', 'x'), 10)).toBe(tooLarge(10));
    expect(cloned).toBe(0);
    // Exactly the cap: read.
    expect(await read(counted('10', 'y'.repeat(10)), 10)).toBe('y'.repeat(10));
    expect(cloned).toBe(1);
    // Not a plain number of at most 16 digits: ignored, the content itself decides.
    for (const odd of ['1e9', '0x100', '12a', 'a12', '+11', '11.0', '99999999999999999', '']) {
      expect(await read(counted(odd, 'z'), 10), odd).toBe('z');
    }
    // 16 digits is still a number.
    expect(await read(counted('9999999999999999', 'z'), 10)).toBe(tooLarge(10));
    expect(await read(counted(' 11 ', 'z'), 10)).toBe(tooLarge(10));
  });

  it('a reader function is called with maxBytes; its BotsigError passes as is, anything else is "the body reader failed"', async () => {
    const asked: number[] = [];
    expect(
      await read(
        {
          body: (max: number) => {
            asked.push(max);
            return 'abc';
          },
        },
        77,
      ),
    ).toBe('abc');
    expect(asked).toEqual([77]);
    const own = new BotsigError('ERR_BODY_TOO_LARGE', 'the reader counted too many bytes');
    expect(
      await readMessageBody(
        {
          body: () => {
            throw own;
          },
        },
        10,
      ).catch((e: unknown) => e),
    ).toBe(own);
    const cause = new Error('socket closed');
    expect(await readMessageBody({ body: () => Promise.reject(cause) }, 10).catch((e: unknown) => e)).toMatchObject({
      code: 'ERR_BODY_UNAVAILABLE',
      message: 'the message content cannot be read: the body reader failed',
      cause,
    });
    // What the reader returns goes through the same cap.
    expect(await read({ body: () => 'x'.repeat(11) }, 10)).toBe(tooLarge(10));
  });
});

describe('readBodyValue: every body form, capped at exactly maxBytes', () => {
  it('text is capped by its UTF-8 length: a string short in characters but long in bytes is refused', async () => {
    expect(dec.decode(await readBodyValue('€€€', 9))).toBe('€€€');
    await expect(readBodyValue('€€€', 8)).rejects.toMatchObject({ code: 'ERR_BODY_TOO_LARGE', message: tooLarge(8).slice(20) });
    expect(dec.decode(await readBodyValue('abc', 3))).toBe('abc');
    await expect(readBodyValue('abcd', 3)).rejects.toMatchObject({ code: 'ERR_BODY_TOO_LARGE' });
  });

  it('bytes, an ArrayBuffer and a view: exactly the cap passes, one more byte is refused', async () => {
    const ten = enc.encode('0123456789');
    for (const [name, make] of [
      ['Uint8Array', (b: Uint8Array) => b],
      ['ArrayBuffer', (b: Uint8Array) => b.slice().buffer],
      ['DataView', (b: Uint8Array) => new DataView(b.slice().buffer)],
      ['Int8Array', (b: Uint8Array) => new Int8Array(b.slice().buffer)],
    ] as const) {
      expect(dec.decode(await readBodyValue(make(ten), 10)), name).toBe('0123456789');
      await expect(readBodyValue(make(ten), 9), name).rejects.toMatchObject({ code: 'ERR_BODY_TOO_LARGE' });
    }
  });

  it('bytes given as a Uint8Array are used as they are, not copied', async () => {
    const given = enc.encode('abc');
    expect(await readBodyValue(given, 3)).toBe(given);
    expect(await readMessageBody({ body: given }, 3)).toBe(given);
  });

  it('a view into a larger buffer is its own bytes only (offset and length kept)', async () => {
    const buffer = enc.encode('..abc..').buffer;
    expect(dec.decode(await readBodyValue(new DataView(buffer, 2, 3), 3))).toBe('abc');
    expect(dec.decode(await readBodyValue(new Uint8Array(buffer, 2, 3), 3))).toBe('abc');
  });

  it('anything else is refused, saying what is accepted', async () => {
    // A function with a getReader method is not a stream (a stream is an object).
    const notStream = Object.assign(() => 'abc', { getReader: () => chunks([enc.encode('abc')]).getReader() });
    for (const value of [42, true, {}, [1, 2], notStream]) {
      await expect(readBodyValue(value, 10)).rejects.toMatchObject({
        code: 'ERR_BODY_UNAVAILABLE',
        message: 'the message content cannot be read: the body is not text, bytes, an ArrayBuffer or a stream of bytes',
      });
    }
  });
});

describe('readBodyValue: streams', () => {
  it('chunks of Uint8Array, ArrayBuffer and views (offset kept) are read in order', async () => {
    const buffer = enc.encode('..cd..').buffer;
    const stream = chunks([enc.encode('ab'), new DataView(buffer, 2, 2), enc.encode('ef').buffer, new Uint8Array(buffer, 2, 1)]);
    expect(dec.decode(await readBodyValue(stream, 100))).toBe('abcdefc');
  });

  it('a stream of exactly the cap is read; one byte more is refused and the stream cancelled', async () => {
    expect(dec.decode(await readBodyValue(chunks([enc.encode('01234'), enc.encode('56789')]), 10))).toBe('0123456789');
    let cancelled = false;
    let i = 0;
    const over = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(enc.encode(i++ === 0 ? '01234' : '567890'));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(readBodyValue(over, 10)).rejects.toMatchObject({ code: 'ERR_BODY_TOO_LARGE', message: tooLarge(10).slice(20) });
    expect(cancelled).toBe(true);
  });

  it('a stream is released after it was read, whether the read succeeded or not', async () => {
    const ok = chunks([enc.encode('abc')]);
    await readBodyValue(ok, 10);
    expect(ok.locked).toBe(false);
    const failing = new ReadableStream<Uint8Array>({
      pull() {
        throw new Error('socket reset');
      },
    });
    await readBodyValue(failing, 10).catch(() => undefined);
    expect(failing.locked).toBe(false);
  });

  it('refusals say why: locked, not readable, failed, not bytes', async () => {
    const locked = chunks([enc.encode('abc')]);
    locked.getReader();
    await expect(readBodyValue(locked, 10)).rejects.toMatchObject({
      code: 'ERR_BODY_UNAVAILABLE',
      message: 'the message content cannot be read: the body stream is locked (something else is reading it)',
    });
    const cause = new TypeError('no reader for you');
    const unreadable = {
      locked: false,
      getReader: () => {
        throw cause;
      },
    };
    await expect(readBodyValue(unreadable, 10)).rejects.toMatchObject({
      code: 'ERR_BODY_UNAVAILABLE',
      message: 'the message content cannot be read: the body stream cannot be read',
      cause,
    });
    const reset = new Error('socket reset');
    const failing = new ReadableStream<Uint8Array>({
      pull() {
        throw reset;
      },
    });
    await expect(readBodyValue(failing, 10)).rejects.toMatchObject({
      code: 'ERR_BODY_UNAVAILABLE',
      message: 'the message content cannot be read: the body stream failed',
      cause: reset,
    });
    await expect(readBodyValue(chunks(['text']), 10)).rejects.toMatchObject({
      code: 'ERR_BODY_UNAVAILABLE',
      message: 'the message content cannot be read: the body stream yields something other than bytes',
    });
  });
});

describe('concat and replayStream', () => {
  it('concat joins chunks in order; none is empty content', () => {
    expect(dec.decode(concat([enc.encode('ab'), enc.encode('c'), enc.encode('de')], 5))).toBe('abcde');
    expect(concat([], 0).byteLength).toBe(0);
    // The chunk itself when there is one.
    const only = enc.encode('only');
    expect(concat([only], 4)).toBe(only);
  });

  it('replayStream yields the bytes once, then ends; empty content ends at once, without an empty chunk', async () => {
    const reader = replayStream(enc.encode('abc')).getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(dec.decode(first.value)).toBe('abc');
    expect((await reader.read()).done).toBe(true);
    // A zero-length chunk would read as "the end" to code that stops at an empty chunk (HTTP/1.1 chunked coding's last-chunk).
    const empty = await replayStream(new Uint8Array(0)).getReader().read();
    expect(empty).toEqual({ done: true, value: undefined });
  });
});
