var __defProp = Object.defineProperty;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __esm = (fn, res) => function __init() {
  return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// ../head/src/core/base64.ts
function decodeTable(alphabets) {
  const table = new Uint8Array(128).fill(255);
  for (const alphabet of alphabets) for (let i = 0; i < 64; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
}
function codes(alphabet) {
  const out = new Uint8Array(64);
  for (let i = 0; i < 64; i++) out[i] = alphabet.charCodeAt(i);
  return out;
}
function encode(bytes2, alphabet, pad) {
  const n = bytes2.length;
  let out = "";
  for (let start = 0; start < n; start += ENCODE_CHUNK) {
    const stop = Math.min(n, start + ENCODE_CHUNK);
    out += encodeChunk(bytes2, start, stop, alphabet, pad);
  }
  return out;
}
function encodeChunk(bytes2, start, stop, alphabet, pad) {
  const whole = start + Math.floor((stop - start) / 3) * 3;
  const rest = stop - whole;
  const chars = new Array((whole - start) / 3 * 4 + (rest === 0 ? 0 : pad ? 4 : rest + 1));
  let o = 0;
  for (let i = start; i < whole; i += 3) {
    const v = bytes2[i] << 16 | bytes2[i + 1] << 8 | bytes2[i + 2];
    chars[o++] = alphabet[v >>> 18];
    chars[o++] = alphabet[v >>> 12 & 63];
    chars[o++] = alphabet[v >>> 6 & 63];
    chars[o++] = alphabet[v & 63];
  }
  if (rest > 0) {
    const v = bytes2[whole] << 16 | (rest === 2 ? bytes2[whole + 1] << 8 : 0);
    chars[o++] = alphabet[v >>> 18];
    chars[o++] = alphabet[v >>> 12 & 63];
    if (rest === 2) chars[o++] = alphabet[v >>> 6 & 63];
    if (pad) {
      chars[o++] = 61;
      if (rest === 1) chars[o++] = 61;
    }
  }
  return String.fromCharCode.apply(null, chars);
}
function decodeRange(text, start, stop, table) {
  let end = stop;
  if (end > start && text.charCodeAt(end - 1) === 61) end--;
  if (end > start && text.charCodeAt(end - 1) === 61) end--;
  if (end !== stop && (stop - start) % 4 !== 0) return void 0;
  const len = end - start;
  const rem = len & 3;
  if (rem === 1) return void 0;
  const out = new Uint8Array((len >>> 2) * 3 + (rem === 0 ? 0 : rem - 1));
  let o = 0;
  let i = start;
  const whole = end - rem;
  for (; i < whole; i += 4) {
    const a2 = text.charCodeAt(i);
    const b2 = text.charCodeAt(i + 1);
    const c2 = text.charCodeAt(i + 2);
    const d = text.charCodeAt(i + 3);
    if ((a2 | b2 | c2 | d) > 127) return void 0;
    const va2 = table[a2];
    const vb2 = table[b2];
    const vc2 = table[c2];
    const vd = table[d];
    if ((va2 | vb2 | vc2 | vd) > 63) return void 0;
    const v2 = va2 << 18 | vb2 << 12 | vc2 << 6 | vd;
    out[o] = v2 >>> 16;
    out[o + 1] = v2 >>> 8 & 255;
    out[o + 2] = v2 & 255;
    o += 3;
  }
  if (rem === 0) return out;
  const a = text.charCodeAt(i);
  const b = text.charCodeAt(i + 1);
  const c = rem === 3 ? text.charCodeAt(i + 2) : 65;
  if ((a | b | c) > 127) return void 0;
  const va = table[a];
  const vb = table[b];
  const vc = table[c];
  if ((va | vb | vc) > 63) return void 0;
  const v = va << 18 | vb << 12 | vc << 6;
  if (rem === 2 ? (v & 65535) !== 0 : (v & 255) !== 0) return void 0;
  out[o] = v >>> 16;
  if (rem === 3) out[o + 1] = v >>> 8 & 255;
  return out;
}
function base64Encode(bytes2) {
  return encode(bytes2, STD_CODES, true);
}
function base64UrlEncode(bytes2) {
  return encode(bytes2, URL_CODES, false);
}
function base64Decode(text) {
  return decodeRange(text, 0, text.length, DECODE_STD);
}
function base64DecodeRange(text, start, end) {
  return decodeRange(text, start, end, DECODE_STD);
}
function base64UrlDecode(text) {
  return decodeRange(text, 0, text.length, DECODE_URL);
}
function base64AnyDecode(text) {
  return decodeRange(text, 0, text.length, DECODE_ANY);
}
function utf8(text) {
  return encoder.encode(text);
}
function bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
var STD, URL2, DECODE_STD, DECODE_URL, DECODE_ANY, STD_CODES, URL_CODES, ENCODE_CHUNK, encoder;
var init_base64 = __esm({
  "../head/src/core/base64.ts"() {
    "use strict";
    STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    URL2 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    DECODE_STD = decodeTable([STD]);
    DECODE_URL = decodeTable([URL2]);
    DECODE_ANY = decodeTable([STD, URL2]);
    STD_CODES = codes(STD);
    URL_CODES = codes(URL2);
    ENCODE_CHUNK = 6144;
    encoder = new TextEncoder();
  }
});

// ../head/src/core/errors.ts
function hasBrand(value) {
  return typeof value === "object" && value !== null && value[BRAND] === true;
}
function isBotsigError(value) {
  if (hasBrand(value)) return true;
  return typeof value === "object" && value !== null && value.name === "BotsigError" && typeof value.code === "string";
}
var BRAND, BotsigError;
var init_errors = __esm({
  "../head/src/core/errors.ts"() {
    "use strict";
    BRAND = Symbol.for("botsig.error");
    BotsigError = class _BotsigError extends Error {
      static {
        Object.defineProperty(this.prototype, BRAND, { value: true });
      }
      /**
       * `error instanceof BotsigError` is true for a BotsigError from any copy of botsig
       * (ESM and CommonJS builds, bundled copies): it checks the brand rather than the
       * prototype chain. For subclasses, `instanceof` keeps its ordinary meaning.
       */
      static [Symbol.hasInstance](value) {
        return this === _BotsigError ? hasBrand(value) : Function.prototype[Symbol.hasInstance].call(this, value);
      }
      name = "BotsigError";
      code;
      constructor(code, message, options) {
        super(message, options?.cause === void 0 ? void 0 : { cause: options.cause });
        this.code = code;
      }
      /** The `{ code, message }` pair that results carry. */
      toJSON() {
        return { code: this.code, message: this.message };
      }
    };
  }
});

// ../head/src/core/sf-syntax.ts
function has(c, cls) {
  return c < 128 && (CC[c] & cls) !== 0;
}
var DIGIT, LCALPHA, KEY, TOKEN, ALPHA, B64, LCHEX, CC, MAX_INTEGER;
var init_sf_syntax = __esm({
  "../head/src/core/sf-syntax.ts"() {
    "use strict";
    DIGIT = 1;
    LCALPHA = 2;
    KEY = 4;
    TOKEN = 8;
    ALPHA = 16;
    B64 = 32;
    LCHEX = 64;
    CC = new Uint8Array(128);
    for (let c = 48; c <= 57; c++) CC[c] = DIGIT | KEY | TOKEN | B64 | LCHEX;
    for (let c = 97; c <= 122; c++) CC[c] = LCALPHA | KEY | TOKEN | ALPHA | B64 | (c <= 102 ? LCHEX : 0);
    for (let c = 65; c <= 90; c++) CC[c] = TOKEN | ALPHA | B64;
    for (const ch of "!#$%&'*+-.^_`|~:/") CC[ch.charCodeAt(0)] |= TOKEN;
    for (const ch of "_-.*") CC[ch.charCodeAt(0)] |= KEY;
    for (const ch of "+/=") CC[ch.charCodeAt(0)] |= B64;
    MAX_INTEGER = 999999999999999;
  }
});

// ../head/src/core/sf-display-string.ts
function hexValue(c) {
  return c <= 57 ? c - 48 : c - 87;
}
function scanDisplayString(s, start) {
  if (s.charCodeAt(start + 1) !== 34) return { error: 'expected DQUOTE after "%" in display string', at: start + 1 };
  const first = start + 2;
  let p = first;
  let escapes = 0;
  for (; ; ) {
    const c = s.charCodeAt(p);
    if (c === 34) break;
    if (c === 37) {
      if (!has(s.charCodeAt(p + 1), LCHEX) || !has(s.charCodeAt(p + 2), LCHEX)) {
        return { error: "invalid percent-encoding in display string", at: p + 1 };
      }
      escapes++;
      p += 3;
    } else if (c >= 32 && c <= 126) {
      p++;
    } else {
      return { error: p >= s.length ? "unterminated display string" : "invalid character in display string", at: p };
    }
  }
  const stop = p;
  if (escapes === 0) return { value: s.slice(first, stop), at: stop + 1 };
  const bytes2 = new Uint8Array(stop - first - 2 * escapes);
  let o = 0;
  for (let i = first; i < stop; ) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      bytes2[o++] = hexValue(s.charCodeAt(i + 1)) << 4 | hexValue(s.charCodeAt(i + 2));
      i += 3;
    } else {
      bytes2[o++] = c;
      i++;
    }
  }
  try {
    return { value: utf8Decoder.decode(bytes2), at: stop + 1 };
  } catch {
    return { error: "invalid UTF-8 in display string", at: first };
  }
}
function pct(out, byte) {
  return out + "%" + HEX[byte >>> 4] + HEX[byte & 15];
}
function lone() {
  throw new BotsigError("ERR_SF_SERIALIZE", "display string contains a lone surrogate");
}
function serializeDisplayString(v) {
  if (typeof v !== "string") throw new TypeError("display string value must be a string");
  let out = '%"';
  let chunk = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 32 && c <= 126 && c !== 37 && c !== 34) continue;
    out += v.slice(chunk, i);
    if (c < 128) {
      out = pct(out, c);
    } else if (c < 2048) {
      out = pct(pct(out, 192 | c >>> 6), 128 | c & 63);
    } else if (c >= 55296 && c <= 57343) {
      const d = v.charCodeAt(i + 1);
      if (c > 56319 || !(d >= 56320 && d <= 57343)) lone();
      const cp = 65536 + (c - 55296 << 10) + (d - 56320);
      out = pct(pct(pct(pct(out, 240 | cp >>> 18), 128 | cp >>> 12 & 63), 128 | cp >>> 6 & 63), 128 | cp & 63);
      i++;
    } else {
      out = pct(pct(pct(out, 224 | c >>> 12), 128 | c >>> 6 & 63), 128 | c & 63);
    }
    chunk = i + 1;
  }
  return out + v.slice(chunk) + '"';
}
var utf8Decoder, HEX;
var init_sf_display_string = __esm({
  "../head/src/core/sf-display-string.ts"() {
    "use strict";
    init_errors();
    init_sf_syntax();
    utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    HEX = "0123456789abcdef";
  }
});

// ../head/src/core/sf-items.ts
function check(ok, what) {
  if (!ok) throw new TypeError(what);
}
function sfString(s) {
  check(typeof s === "string", "sfString expects a string");
  return { type: "string", value: s };
}
function sfToken(s) {
  check(typeof s === "string", "sfToken expects a string");
  return { type: "token", value: s };
}
function sfInteger(n) {
  check(typeof n === "number", "sfInteger expects a number");
  return { type: "integer", value: n };
}
function sfDecimal(n) {
  check(typeof n === "number", "sfDecimal expects a number");
  return { type: "decimal", value: n };
}
function sfBoolean(b) {
  check(typeof b === "boolean", "sfBoolean expects a boolean");
  return b ? TRUE : FALSE;
}
function sfBinary(bytes2) {
  check(bytes2 instanceof Uint8Array, "sfBinary expects a Uint8Array");
  return { type: "binary", value: bytes2 };
}
function sfDate(seconds2) {
  check(typeof seconds2 === "number", "sfDate expects a number");
  return { type: "date", value: seconds2 };
}
function sfDisplayString(s) {
  check(typeof s === "string", "sfDisplayString expects a string");
  return { type: "displaystring", value: s };
}
function item(value, params) {
  return { kind: "item", value, params: params ?? /* @__PURE__ */ new Map() };
}
function innerList(items, params) {
  return { kind: "inner-list", items, params: params ?? /* @__PURE__ */ new Map() };
}
var TRUE, FALSE;
var init_sf_items = __esm({
  "../head/src/core/sf-items.ts"() {
    "use strict";
    TRUE = Object.freeze({ type: "boolean", value: true });
    FALSE = Object.freeze({ type: "boolean", value: false });
  }
});

// ../head/src/core/sf-parse.ts
function decodeWithPadBits(text) {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  const rem = end % 4;
  if (rem < 2) return void 0;
  const v = B64_ALPHABET.indexOf(text.charAt(end - 1));
  if (v < 0) return void 0;
  const fixed = B64_ALPHABET.charAt(v & (rem === 2 ? 48 : 60));
  return base64Decode(text.slice(0, end - 1) + fixed + text.slice(end));
}
function parseItem(text) {
  const parser = new Parser(text, "parseItem");
  const item2 = parser.item();
  parser.end();
  return item2;
}
function parseList(text) {
  const parser = new Parser(text, "parseList");
  const list = parser.list();
  parser.end();
  return list;
}
function parseDictionary(text) {
  const parser = new Parser(text, "parseDictionary");
  const dict = parser.dictionary();
  parser.end();
  return dict;
}
var STRING_RUN, B64_ALPHABET, Parser;
var init_sf_parse = __esm({
  "../head/src/core/sf-parse.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_sf_display_string();
    init_sf_items();
    init_sf_syntax();
    STRING_RUN = /[\x20\x21\x23-\x5b\x5d-\x7e]*/y;
    B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    Parser = class {
      s;
      n;
      p = 0;
      constructor(text, fn) {
        if (typeof text !== "string") throw new TypeError(`${fn} expects a string`);
        this.s = text;
        this.n = text.length;
        this.skipSP();
      }
      fail(what) {
        throw new BotsigError("ERR_SF_PARSE", `${what} at offset ${this.p}`);
      }
      failAt(at, what) {
        this.p = at;
        return this.fail(what);
      }
      skipSP() {
        const s = this.s;
        let p = this.p;
        while (s.charCodeAt(p) === 32) p++;
        this.p = p;
      }
      skipOWS() {
        const s = this.s;
        let p = this.p;
        for (; ; ) {
          const c = s.charCodeAt(p);
          if (c !== 32 && c !== 9) break;
          p++;
        }
        this.p = p;
      }
      end() {
        this.skipSP();
        if (this.p < this.n) this.fail("unexpected character after the field value");
      }
      // RFC 9651 §4.2.1
      list() {
        const list = [];
        while (this.p < this.n) {
          list.push(this.member());
          this.skipOWS();
          if (this.p >= this.n) return list;
          if (this.s.charCodeAt(this.p) !== 44) this.fail('expected "," between list members');
          this.p++;
          this.skipOWS();
          if (this.p >= this.n) this.fail('trailing "," in list');
        }
        return list;
      }
      // RFC 9651 §4.2.2
      dictionary() {
        const dict = /* @__PURE__ */ new Map();
        while (this.p < this.n) {
          const key = this.key();
          let member;
          if (this.s.charCodeAt(this.p) === 61) {
            this.p++;
            member = this.member();
          } else {
            member = { kind: "item", value: TRUE, params: this.params() };
          }
          dict.set(key, member);
          this.skipOWS();
          if (this.p >= this.n) return dict;
          if (this.s.charCodeAt(this.p) !== 44) this.fail('expected "," between dictionary members');
          this.p++;
          this.skipOWS();
          if (this.p >= this.n) this.fail('trailing "," in dictionary');
        }
        return dict;
      }
      // RFC 9651 §4.2.1.1
      member() {
        return this.s.charCodeAt(this.p) === 40 ? this.innerList() : this.item();
      }
      // RFC 9651 §4.2.1.2
      innerList() {
        const s = this.s;
        this.p++;
        const items = [];
        while (this.p < this.n) {
          this.skipSP();
          if (this.p >= this.n) break;
          if (s.charCodeAt(this.p) === 41) {
            this.p++;
            return { kind: "inner-list", items, params: this.params() };
          }
          items.push(this.item());
          const c = s.charCodeAt(this.p);
          if (c !== 32 && c !== 41 && this.p < this.n) this.fail('expected SP or ")" in inner list');
        }
        return this.fail("unterminated inner list");
      }
      // RFC 9651 §4.2.3
      item() {
        const value = this.bareItem();
        return { kind: "item", value, params: this.params() };
      }
      // RFC 9651 §4.2.3.1
      bareItem() {
        const c = this.s.charCodeAt(this.p);
        if (c === 45 || has(c, DIGIT)) return this.number();
        if (c === 34) return { type: "string", value: this.string() };
        if (c === 42 || has(c, ALPHA)) return { type: "token", value: this.token() };
        switch (c) {
          case 58:
            return { type: "binary", value: this.binary() };
          case 63:
            return this.boolean();
          case 64:
            return this.date();
          case 37:
            return { type: "displaystring", value: this.displayString() };
          default:
            return this.p >= this.n ? this.fail("expected a bare item, found end of input") : this.fail("expected a bare item");
        }
      }
      // RFC 9651 §4.2.3.2
      params() {
        const s = this.s;
        const params = /* @__PURE__ */ new Map();
        while (s.charCodeAt(this.p) === 59) {
          this.p++;
          this.skipSP();
          const key = this.key();
          let value = TRUE;
          if (s.charCodeAt(this.p) === 61) {
            this.p++;
            value = this.bareItem();
          }
          params.set(key, value);
        }
        return params;
      }
      // RFC 9651 §4.2.3.3
      key() {
        const s = this.s;
        const start = this.p;
        const c = s.charCodeAt(start);
        if (c !== 42 && !has(c, LCALPHA)) this.fail("expected a key");
        let p = start + 1;
        while (has(s.charCodeAt(p), KEY)) p++;
        this.p = p;
        return s.slice(start, p);
      }
      // RFC 9651 §4.2.4
      number() {
        const s = this.s;
        let p = this.p;
        let neg = false;
        if (s.charCodeAt(p) === 45) {
          neg = true;
          p++;
        }
        if (!has(s.charCodeAt(p), DIGIT)) this.failAt(p, "expected a digit");
        let value = 0;
        let digits2 = 0;
        for (; ; ) {
          const c = s.charCodeAt(p);
          if (c >= 48 && c <= 57) {
            if (++digits2 > 15) this.failAt(p, "integer with more than 15 digits");
            value = value * 10 + (c - 48);
            p++;
          } else if (c === 46) {
            if (digits2 > 12) this.failAt(p, "decimal with more than 12 integer digits");
            p++;
            const fracStart = p;
            for (; ; ) {
              const f = s.charCodeAt(p);
              if (!(f >= 48 && f <= 57)) break;
              if (p - fracStart === 3) this.failAt(p, "decimal with more than 3 fractional digits");
              value = value * 10 + (f - 48);
              p++;
            }
            const scale = p - fracStart;
            if (scale === 0) this.failAt(p, 'decimal ending in "."');
            this.p = p;
            const d = value / (scale === 1 ? 10 : scale === 2 ? 100 : 1e3);
            return { type: "decimal", value: neg && d !== 0 ? -d : d };
          } else {
            break;
          }
        }
        this.p = p;
        return { type: "integer", value: neg && value !== 0 ? -value : value };
      }
      // RFC 9651 §4.2.5
      string() {
        const s = this.s;
        const n = this.n;
        const first = this.p + 1;
        STRING_RUN.lastIndex = first;
        let p = STRING_RUN.test(s) ? STRING_RUN.lastIndex : first;
        if (p < n && s.charCodeAt(p) === 34) {
          this.p = p + 1;
          return s.slice(first, p);
        }
        let out = "";
        let chunk = first;
        while (p < n) {
          const c = s.charCodeAt(p);
          if (c === 34) {
            const value = out === "" ? s.slice(chunk, p) : out + s.slice(chunk, p);
            this.p = p + 1;
            return value;
          }
          if (c === 92) {
            const d = s.charCodeAt(p + 1);
            if (d !== 34 && d !== 92) this.failAt(p + 1, p + 1 >= n ? "unterminated string" : "invalid escape in string");
            out += s.slice(chunk, p);
            chunk = p + 1;
            p += 2;
            continue;
          }
          if (c < 32 || c > 126) this.failAt(p, "invalid character in string");
          p++;
        }
        return this.failAt(p, "unterminated string");
      }
      // RFC 9651 §4.2.6 (the caller has checked the first character)
      token() {
        const s = this.s;
        const start = this.p;
        let p = start + 1;
        while (has(s.charCodeAt(p), TOKEN)) p++;
        this.p = p;
        return s.slice(start, p);
      }
      // RFC 9651 §4.2.7
      binary() {
        const s = this.s;
        const start = this.p + 1;
        const close = s.indexOf(":", start);
        if (close >= 0) {
          const decoded2 = base64DecodeRange(s, start, close);
          if (decoded2 !== void 0) {
            this.p = close + 1;
            return decoded2;
          }
        }
        let p = start;
        for (; ; ) {
          const c = s.charCodeAt(p);
          if (c === 58) break;
          if (!has(c, B64)) this.failAt(p, p >= this.n ? "unterminated byte sequence" : "invalid character in byte sequence");
          p++;
        }
        const bytes2 = base64DecodeRange(s, start, p) ?? decodeWithPadBits(s.slice(start, p));
        if (bytes2 === void 0) this.failAt(start, "invalid base64 in byte sequence");
        this.p = p + 1;
        return bytes2;
      }
      // RFC 9651 §4.2.8
      boolean() {
        const c = this.s.charCodeAt(++this.p);
        if (c === 49 || c === 48) {
          this.p++;
          return c === 49 ? TRUE : FALSE;
        }
        return this.fail('expected "0" or "1" in boolean');
      }
      // RFC 9651 §4.2.9
      date() {
        const start = ++this.p;
        const n = this.number();
        if (n.type !== "integer") this.failAt(start, "date is not an integer");
        return { type: "date", value: n.value };
      }
      // RFC 9651 §4.2.10
      displayString() {
        const r = scanDisplayString(this.s, this.p);
        if (r.error !== void 0) return this.failAt(r.at, r.error);
        this.p = r.at;
        return r.value;
      }
    };
  }
});

// ../head/src/core/sf-serialize.ts
function serializeFail(what) {
  throw new BotsigError("ERR_SF_SERIALIZE", what);
}
function serializeInteger(v, what) {
  if (typeof v !== "number") throw new TypeError(`${what} value must be a number`);
  if (!Number.isInteger(v) || v > MAX_INTEGER || v < -MAX_INTEGER) {
    serializeFail(`${what} is not an integer in the range \xB1999,999,999,999,999`);
  }
  return String(v);
}
function serializeDecimal(v) {
  if (typeof v !== "number") throw new TypeError("decimal value must be a number");
  if (!Number.isFinite(v)) serializeFail("decimal is not finite");
  const abs = Math.abs(v);
  if (abs >= 1e12) serializeFail("decimal has more than 12 integer digits");
  const text = String(abs);
  let thousandths;
  if (text.includes("e")) {
    thousandths = 0;
  } else {
    const dot = text.indexOf(".");
    const intPart = dot < 0 ? text : text.slice(0, dot);
    const frac = dot < 0 ? "" : text.slice(dot + 1);
    thousandths = Number(intPart) * 1e3 + Number((frac + "000").slice(0, 3));
    if (frac.length > 3) {
      const next = frac.charCodeAt(3);
      if (next > 53 || next === 53 && (frac.length > 4 || thousandths % 2 === 1)) thousandths++;
    }
  }
  if (thousandths >= 1e15) serializeFail("decimal has more than 12 integer digits");
  const intDigits = Math.floor(thousandths / 1e3);
  let fracDigits = thousandths % 1e3;
  let fracText;
  if (fracDigits === 0) fracText = "0";
  else {
    fracText = String(fracDigits).padStart(3, "0");
    while (fracDigits % 10 === 0) {
      fracDigits /= 10;
      fracText = fracText.slice(0, -1);
    }
  }
  return `${v < 0 && thousandths !== 0 ? "-" : ""}${intDigits}.${fracText}`;
}
function serializeString(v) {
  if (typeof v !== "string") throw new TypeError("string value must be a string");
  if (PLAIN_STRING.test(v)) return '"' + v + '"';
  let out = '"';
  let chunk = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 32 || c > 126) serializeFail("string contains a character outside printable ASCII");
    if (c === 34 || c === 92) {
      out += v.slice(chunk, i) + "\\";
      chunk = i;
    }
  }
  return out + v.slice(chunk) + '"';
}
function serializeToken(v) {
  if (typeof v !== "string") throw new TypeError("token value must be a string");
  const c = v.charCodeAt(0);
  if (c !== 42 && !has(c, ALPHA)) serializeFail('token does not start with ALPHA or "*"');
  for (let i = 1; i < v.length; i++) {
    if (!has(v.charCodeAt(i), TOKEN)) serializeFail('token contains a character outside tchar / ":" / "/"');
  }
  return v;
}
function serializeKey(k) {
  if (typeof k !== "string") throw new TypeError("key must be a string");
  const c = k.charCodeAt(0);
  if (c !== 42 && !has(c, LCALPHA)) serializeFail('key does not start with lcalpha or "*"');
  for (let i = 1; i < k.length; i++) {
    if (!has(k.charCodeAt(i), KEY)) serializeFail('key contains a character outside lcalpha / DIGIT / "_-.*"');
  }
  return k;
}
function serializeBareItem(v) {
  switch (v.type) {
    case "integer":
      return serializeInteger(v.value, "integer");
    case "decimal":
      return serializeDecimal(v.value);
    case "string":
      return serializeString(v.value);
    case "token":
      return serializeToken(v.value);
    case "binary":
      if (!(v.value instanceof Uint8Array)) throw new TypeError("binary value must be a Uint8Array");
      return `:${base64Encode(v.value)}:`;
    case "boolean":
      if (typeof v.value !== "boolean") throw new TypeError("boolean value must be a boolean");
      return v.value ? "?1" : "?0";
    case "date":
      return "@" + serializeInteger(v.value, "date");
    case "displaystring":
      return serializeDisplayString(v.value);
    default:
      throw new TypeError("unknown bare item type");
  }
}
function serializeParameters(p) {
  let out = "";
  for (const [key, value] of p) {
    out += ";" + serializeKey(key);
    if (!(value.type === "boolean" && value.value === true)) out += "=" + serializeBareItem(value);
  }
  return out;
}
function serializeItem(i) {
  return serializeBareItem(i.value) + serializeParameters(i.params);
}
function serializeInnerList(l) {
  let out = "(";
  const items = l.items;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += " ";
    out += serializeItem(items[i]);
  }
  return out + ")" + serializeParameters(l.params);
}
function serializeMember(m) {
  return m.kind === "inner-list" ? serializeInnerList(m) : serializeItem(m);
}
function serializeList(list) {
  let out = "";
  for (let i = 0; i < list.length; i++) {
    if (i > 0) out += ", ";
    out += serializeMember(list[i]);
  }
  return out;
}
function serializeDictionary(dict) {
  let out = "";
  let first = true;
  for (const [key, m] of dict) {
    if (!first) out += ", ";
    first = false;
    out += serializeKey(key);
    if (m.kind === "item" && m.value.type === "boolean" && m.value.value === true) {
      out += serializeParameters(m.params);
    } else {
      out += "=" + serializeMember(m);
    }
  }
  return out;
}
var PLAIN_STRING;
var init_sf_serialize = __esm({
  "../head/src/core/sf-serialize.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_sf_display_string();
    init_sf_syntax();
    PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
  }
});

// ../head/src/core/sf.ts
var init_sf = __esm({
  "../head/src/core/sf.ts"() {
    "use strict";
    init_sf_parse();
    init_sf_serialize();
    init_sf_items();
  }
});

// ../head/src/core/time.ts
function toEpochSeconds(value, what) {
  const s = value instanceof Date ? Math.floor(value.getTime() / 1e3) : value;
  if (!Number.isSafeInteger(s)) throw new TypeError(`${what} must be a Date or an integer number of seconds`);
  return s;
}
var systemClock;
var init_time = __esm({
  "../head/src/core/time.ts"() {
    "use strict";
    systemClock = () => Date.now();
  }
});

// ../head/src/core/bounded-map.ts
var BoundedMap;
var init_bounded_map = __esm({
  "../head/src/core/bounded-map.ts"() {
    "use strict";
    BoundedMap = class {
      #map = /* @__PURE__ */ new Map();
      #max;
      #canEvict;
      /**
       * @param max most entries kept (a positive integer).
       * @param canEvict when given, entries it refuses (e.g. a fetch in flight) are skipped
       *   by eviction; if none can go, the map grows past `max` until one can.
       * @throws RangeError when `max` is not a positive integer.
       */
      constructor(max, canEvict) {
        if (!Number.isSafeInteger(max) || max < 1) throw new RangeError("BoundedMap size must be a positive integer");
        this.#max = max;
        this.#canEvict = canEvict;
      }
      get size() {
        return this.#map.size;
      }
      get max() {
        return this.#max;
      }
      get(key) {
        return this.#map.get(key);
      }
      /** `get`, and the key becomes the most recently used. */
      getRecent(key) {
        const value = this.#map.get(key);
        if (value !== void 0) {
          this.#map.delete(key);
          this.#map.set(key, value);
        }
        return value;
      }
      has(key) {
        return this.#map.has(key);
      }
      /** Sets `key` (as the most recent entry), evicting the oldest entries beyond the limit. */
      set(key, value) {
        if (this.#map.has(key)) this.#map.delete(key);
        this.#map.set(key, value);
        if (this.#map.size > this.#max) this.#evict(key);
        return this;
      }
      /** Moves an existing key to the young end; false when absent. */
      touch(key) {
        return this.getRecent(key) !== void 0 || this.#map.has(key);
      }
      delete(key) {
        return this.#map.delete(key);
      }
      clear() {
        this.#map.clear();
      }
      keys() {
        return this.#map.keys();
      }
      values() {
        return this.#map.values();
      }
      entries() {
        return this.#map.entries();
      }
      [Symbol.iterator]() {
        return this.#map.entries();
      }
      #evict(keep) {
        const canEvict = this.#canEvict;
        for (const [k, v] of this.#map) {
          if (this.#map.size <= this.#max) return;
          if (k === keep) continue;
          if (canEvict === void 0 || canEvict(v)) this.#map.delete(k);
        }
      }
    };
  }
});

// ../head/src/core/process-wide.ts
function processWide(name, create) {
  const key = Symbol.for(`botsig.${name}`);
  const holder = globalThis;
  let value = holder[key];
  if (value === void 0) {
    value = create();
    Object.defineProperty(globalThis, key, { value, enumerable: false, writable: false, configurable: false });
  }
  return value;
}
var init_process_wide = __esm({
  "../head/src/core/process-wide.ts"() {
    "use strict";
  }
});

// ../head/src/crypto/registry.ts
function hasOwn(o, k) {
  return Object.prototype.hasOwnProperty.call(o, k);
}
function isAlgorithmName(name) {
  return typeof name === "string" && hasOwn(SPECS, name);
}
function algorithmSpec(alg) {
  if (!isAlgorithmName(alg)) throw new TypeError("not a supported algorithm name");
  return SPECS[alg];
}
function toAlgorithmName(name) {
  if (typeof name !== "string") throw new TypeError("algorithm name must be a string");
  return checkedAlgorithm(name);
}
function keyAlgorithm(alg) {
  if (typeof alg !== "string") throw new BotsigError("ERR_ALG_UNKNOWN", "the key has no algorithm name");
  return checkedAlgorithm(alg);
}
function checkedAlgorithm(name) {
  if (hasOwn(SPECS, name)) return name;
  if (SHARED_SECRET.has(name)) {
    throw new BotsigError("ERR_ALG_NOT_ALLOWED", `${name} is refused: shared-secret signatures are not allowed`);
  }
  throw new BotsigError("ERR_ALG_UNKNOWN", "the algorithm is not in the HTTP Signature Algorithms registry subset botsig supports");
}
function joseAlgToHttpSig(alg) {
  return typeof alg === "string" ? JOSE_TO_HTTPSIG.get(alg) : void 0;
}
function jwkAlgToAlgorithmName(alg) {
  if (typeof alg !== "string") return void 0;
  return isAlgorithmName(alg) ? alg : JOSE_TO_HTTPSIG.get(alg);
}
function inferAlgorithm(jwk) {
  if (typeof jwk !== "object" || jwk === null) return void 0;
  if (jwk.alg !== void 0) return jwkAlgToAlgorithmName(jwk.alg);
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "ed25519";
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ecdsa-p256-sha256";
  if (jwk.kty === "EC" && jwk.crv === "P-384") return "ecdsa-p384-sha384";
  return void 0;
}
function jwkFitsAlgorithm(jwk, alg) {
  if (typeof jwk !== "object" || jwk === null || !isAlgorithmName(alg)) return false;
  const spec = SPECS[alg];
  if (jwk.kty !== spec.kty) return false;
  return spec.crv === void 0 || jwk.crv === spec.crv;
}
function algorithmForJwk(jwk, requested) {
  if (jwk.kty === "oct" || typeof jwk.alg === "string" && SHARED_SECRET.has(jwk.alg)) {
    throw new BotsigError("ERR_ALG_NOT_ALLOWED", "symmetric (shared-secret) keys are not allowed");
  }
  if (requested !== void 0 && !isAlgorithmName(requested)) {
    throw new TypeError("options.alg must be one of the supported algorithm names");
  }
  let declared;
  if (jwk.alg !== void 0) {
    declared = jwkAlgToAlgorithmName(jwk.alg);
    if (declared === void 0) throw new BotsigError("ERR_ALG_UNKNOWN", "the JWK alg member names an unsupported algorithm");
  }
  if (requested !== void 0 && declared !== void 0 && declared !== requested) {
    throw new BotsigError("ERR_ALG_MISMATCH", `the JWK is declared for ${declared}, not ${requested}`);
  }
  const alg = requested ?? declared ?? inferAlgorithm(jwk);
  if (alg === void 0) {
    if (jwk.kty === "RSA") {
      throw new BotsigError("ERR_ALG_UNKNOWN", "an RSA key needs an alg (rsa-pss-sha512 or rsa-v1_5-sha256)");
    }
    throw new BotsigError("ERR_KEY_INVALID", "unsupported key type or curve");
  }
  if (!jwkFitsAlgorithm(jwk, alg)) {
    throw new BotsigError("ERR_ALG_MISMATCH", `the key type does not fit ${alg}`);
  }
  return alg;
}
function algorithmFromWebCryptoKey(algorithm) {
  const a = algorithm;
  switch (a.name) {
    case "Ed25519":
      return "ed25519";
    case "ECDSA":
      return a.namedCurve === "P-256" ? "ecdsa-p256-sha256" : a.namedCurve === "P-384" ? "ecdsa-p384-sha384" : void 0;
    case "RSA-PSS":
      return a.hash?.name === "SHA-512" ? "rsa-pss-sha512" : void 0;
    case "RSASSA-PKCS1-v1_5":
      return a.hash?.name === "SHA-256" ? "rsa-v1_5-sha256" : void 0;
    default:
      return void 0;
  }
}
var RSA_MIN_MODULUS_BITS, RSA_MAX_MODULUS_BITS, F4, SPECS, ALGORITHMS, JOSE_TO_HTTPSIG, SHARED_SECRET;
var init_registry = __esm({
  "../head/src/crypto/registry.ts"() {
    "use strict";
    init_errors();
    RSA_MIN_MODULUS_BITS = 2048;
    RSA_MAX_MODULUS_BITS = 8192;
    F4 = new Uint8Array([1, 0, 1]);
    SPECS = {
      // RFC 9421 §3.3.6
      ed25519: {
        name: "ed25519",
        jose: "EdDSA",
        kty: "OKP",
        crv: "Ed25519",
        keyBytes: 32,
        signatureBytes: 64,
        nobleFallback: true,
        webCrypto: { importParams: { name: "Ed25519" }, signParams: { name: "Ed25519" }, generateParams: { name: "Ed25519" } },
        node: { hash: null }
      },
      // RFC 9421 §3.3.4
      "ecdsa-p256-sha256": {
        name: "ecdsa-p256-sha256",
        jose: "ES256",
        kty: "EC",
        crv: "P-256",
        keyBytes: 32,
        signatureBytes: 64,
        nobleFallback: false,
        webCrypto: {
          importParams: { name: "ECDSA", namedCurve: "P-256" },
          signParams: { name: "ECDSA", hash: "SHA-256" },
          generateParams: { name: "ECDSA", namedCurve: "P-256" }
        },
        node: { hash: "sha256", dsaEncoding: "ieee-p1363" }
      },
      // RFC 9421 §3.3.5
      "ecdsa-p384-sha384": {
        name: "ecdsa-p384-sha384",
        jose: "ES384",
        kty: "EC",
        crv: "P-384",
        keyBytes: 48,
        signatureBytes: 96,
        nobleFallback: false,
        webCrypto: {
          importParams: { name: "ECDSA", namedCurve: "P-384" },
          signParams: { name: "ECDSA", hash: "SHA-384" },
          generateParams: { name: "ECDSA", namedCurve: "P-384" }
        },
        node: { hash: "sha384", dsaEncoding: "ieee-p1363" }
      },
      // RFC 9421 §3.3.1: MGF1 with SHA-512, salt length 64 bytes.
      "rsa-pss-sha512": {
        name: "rsa-pss-sha512",
        jose: "PS512",
        kty: "RSA",
        nobleFallback: false,
        webCrypto: {
          importParams: { name: "RSA-PSS", hash: "SHA-512" },
          signParams: { name: "RSA-PSS", saltLength: 64 },
          generateParams: { name: "RSA-PSS", hash: "SHA-512", modulusLength: 2048, publicExponent: F4 }
        },
        node: { hash: "sha512", padding: "pss", saltLength: 64 }
      },
      // RFC 9421 §3.3.2
      "rsa-v1_5-sha256": {
        name: "rsa-v1_5-sha256",
        jose: "RS256",
        kty: "RSA",
        nobleFallback: false,
        webCrypto: {
          importParams: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
          signParams: { name: "RSASSA-PKCS1-v1_5" },
          generateParams: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", modulusLength: 2048, publicExponent: F4 }
        },
        node: { hash: "sha256", padding: "pkcs1" }
      }
    };
    ALGORITHMS = Object.freeze(["ed25519", "ecdsa-p256-sha256", "ecdsa-p384-sha384", "rsa-pss-sha512", "rsa-v1_5-sha256"]);
    JOSE_TO_HTTPSIG = /* @__PURE__ */ new Map([
      ["EdDSA", "ed25519"],
      ["Ed25519", "ed25519"],
      ["ES256", "ecdsa-p256-sha256"],
      ["ES384", "ecdsa-p384-sha384"],
      ["PS512", "rsa-pss-sha512"],
      ["RS256", "rsa-v1_5-sha256"]
    ]);
    SHARED_SECRET = /* @__PURE__ */ new Set(["hmac-sha256", "HS256", "HS384", "HS512"]);
  }
});

// ../head/src/crypto/noble.ts
var noble_exports = {};
__export(noble_exports, {
  ed25519JwkBytes: () => ed25519JwkBytes,
  nobleEd25519Provider: () => nobleEd25519Provider,
  nobleEd25519PublicKey: () => nobleEd25519PublicKey,
  nobleEd25519Signer: () => nobleEd25519Signer,
  nobleEd25519Verifier: () => nobleEd25519Verifier,
  nobleGenerateEd25519Jwk: () => nobleGenerateEd25519Jwk
});
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
function wireSha512() {
  if (sha512Wired) return;
  if (ed.hashes.sha512 === void 0) ed.hashes.sha512 = sha512;
  sha512Wired = true;
}
function bytes32(jwk, member) {
  const text = jwk[member];
  const out = typeof text === "string" ? base64UrlDecode(text) : void 0;
  if (out === void 0 || out.length !== 32) {
    throw new BotsigError("ERR_KEY_INVALID", `Ed25519 JWK member "${member}" must be 32 base64url-encoded bytes`);
  }
  return out;
}
function nobleEd25519Verifier(publicKey) {
  wireSha512();
  try {
    ed.Point.fromBytes(publicKey, false);
  } catch (cause) {
    throw new BotsigError("ERR_KEY_INVALID", "Ed25519 public key is not a valid curve point", { cause });
  }
  return (data, signature) => {
    if (signature.length !== 64) return false;
    try {
      return ed.verify(signature, data, publicKey, { zip215: false });
    } catch {
      return false;
    }
  };
}
function nobleEd25519Signer(seed, publicKey) {
  wireSha512();
  if (publicKey !== void 0) {
    const derived = ed.getPublicKey(seed);
    let diff = derived.length ^ publicKey.length;
    for (let i = 0; i < derived.length && i < publicKey.length; i++) diff |= derived[i] ^ publicKey[i];
    if (diff !== 0) throw new BotsigError("ERR_KEY_INVALID", 'the Ed25519 private key does not match its public key "x"');
  }
  return (data) => ed.sign(data, seed);
}
function nobleEd25519PublicKey(seed) {
  wireSha512();
  return ed.getPublicKey(seed);
}
function nobleGenerateEd25519Jwk() {
  wireSha512();
  const seed = ed.utils.randomSecretKey();
  return { kty: "OKP", crv: "Ed25519", x: base64UrlEncode(ed.getPublicKey(seed)), d: base64UrlEncode(seed) };
}
function ed25519Only(alg) {
  if (alg !== "ed25519") throw new BotsigError("ERR_CRYPTO_UNSUPPORTED", `the noble provider only implements ed25519, not ${alg}`);
}
function ed25519JwkBytes(jwk, member) {
  return bytes32(jwk, member);
}
var sha512Wired, nobleEd25519Provider;
var init_noble = __esm({
  "../head/src/crypto/noble.ts"() {
    "use strict";
    init_base64();
    init_errors();
    sha512Wired = false;
    nobleEd25519Provider = Object.freeze({
      name: "noble-ed25519",
      synchronous: true,
      async importVerify(jwk, alg) {
        ed25519Only(alg);
        return nobleEd25519Verifier(bytes32(jwk, "x"));
      },
      async importSign(jwk, alg) {
        ed25519Only(alg);
        return nobleEd25519Signer(bytes32(jwk, "d"), bytes32(jwk, "x"));
      }
    });
  }
});

// ../head/src/crypto/webcrypto.ts
function getSubtle() {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === void 0) throw new BotsigError("ERR_CRYPTO_UNSUPPORTED", "crypto.subtle is not available in this runtime");
  return subtle;
}
function loadNoble() {
  return Promise.resolve().then(() => (init_noble(), noble_exports));
}
function webCryptoHasEd25519() {
  ed25519Support ??= (async () => {
    try {
      await getSubtle().importKey("jwk", { kty: "OKP", crv: "Ed25519", x: PROBE_X }, { name: "Ed25519" }, false, ["verify"]);
      return true;
    } catch {
      return false;
    }
  })();
  return ed25519Support;
}
function importFailure(error, alg) {
  if (isBotsigError(error)) return error;
  const name = error?.name;
  if (name === "NotSupportedError") {
    return new BotsigError("ERR_CRYPTO_UNSUPPORTED", `this runtime's WebCrypto does not support ${alg}`, { cause: error });
  }
  return new BotsigError("ERR_KEY_INVALID", `the key material was rejected for ${alg}`, { cause: error });
}
function webCryptoVerifier(key, alg) {
  const subtle = getSubtle();
  const params = algorithmSpec(alg).webCrypto.signParams;
  return (data, signature) => subtle.verify(params, key, signature, data);
}
function webCryptoSigner(key, alg) {
  const subtle = getSubtle();
  const params = algorithmSpec(alg).webCrypto.signParams;
  return async (data) => new Uint8Array(await subtle.sign(params, key, data));
}
function material(jwk, includePrivate) {
  const out = { kty: jwk.kty };
  for (const name of includePrivate ? PRIVATE_MEMBERS : PUBLIC_MEMBERS) {
    const value = jwk[name];
    if (typeof value === "string") out[name] = value;
  }
  return out;
}
var PROBE_X, ed25519Support, PUBLIC_MEMBERS, PRIVATE_MEMBERS, webCryptoProvider;
var init_webcrypto = __esm({
  "../head/src/crypto/webcrypto.ts"() {
    "use strict";
    init_errors();
    init_registry();
    PROBE_X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
    PUBLIC_MEMBERS = ["crv", "x", "y", "n", "e"];
    PRIVATE_MEMBERS = ["crv", "x", "y", "n", "e", "d", "p", "q", "dp", "dq", "qi"];
    webCryptoProvider = Object.freeze({
      name: "webcrypto",
      async importVerify(jwk, alg) {
        const spec = algorithmSpec(alg);
        if (spec.nobleFallback && !await webCryptoHasEd25519()) {
          const noble = await loadNoble();
          return noble.nobleEd25519Verifier(noble.ed25519JwkBytes(jwk, "x"));
        }
        let key;
        try {
          key = await getSubtle().importKey("jwk", material(jwk, false), spec.webCrypto.importParams, false, ["verify"]);
        } catch (error) {
          throw importFailure(error, alg);
        }
        return webCryptoVerifier(key, alg);
      },
      async importSign(jwk, alg) {
        const spec = algorithmSpec(alg);
        if (spec.nobleFallback && !await webCryptoHasEd25519()) {
          const noble = await loadNoble();
          return noble.nobleEd25519Signer(noble.ed25519JwkBytes(jwk, "d"), noble.ed25519JwkBytes(jwk, "x"));
        }
        let key;
        try {
          key = await getSubtle().importKey("jwk", material(jwk, true), spec.webCrypto.importParams, false, ["sign"]);
        } catch (error) {
          throw importFailure(error, alg);
        }
        return webCryptoSigner(key, alg);
      }
    });
  }
});

// ../head/src/crypto/provider.ts
function getCryptoProvider() {
  return registry.current;
}
function setCryptoProvider(provider) {
  if (typeof provider !== "object" || provider === null || typeof provider.name !== "string" || typeof provider.importSign !== "function" || typeof provider.importVerify !== "function") {
    throw new TypeError("provider must have a name, importSign() and importVerify()");
  }
  registry.current = provider;
}
var registry;
var init_provider = __esm({
  "../head/src/crypto/provider.ts"() {
    "use strict";
    init_process_wide();
    init_webcrypto();
    registry = processWide("crypto-provider.v1", () => ({ current: webCryptoProvider }));
  }
});

// ../head/src/crypto/keys/cache.ts
function snapshot(jwk, requested) {
  return { requested, values: SNAPSHOT_MEMBERS.map((m) => jwk[m]) };
}
function sameSnapshot(s, jwk, requested) {
  if (s.requested !== requested) return false;
  for (let i = 0; i < SNAPSHOT_MEMBERS.length; i++) if (s.values[i] !== jwk[SNAPSHOT_MEMBERS[i]]) return false;
  return true;
}
function forgetIfSame(map, key, value) {
  if (map.get(key) === value) map.delete(key);
}
var KEY_CACHE_MAX_ENTRIES, SNAPSHOT_MEMBERS, KeyCache, keyCache;
var init_cache = __esm({
  "../head/src/crypto/keys/cache.ts"() {
    "use strict";
    init_bounded_map();
    KEY_CACHE_MAX_ENTRIES = 1e3;
    SNAPSHOT_MEMBERS = ["kty", "crv", "x", "y", "n", "e", "d", "alg"];
    KeyCache = class {
      byProvider = /* @__PURE__ */ new WeakMap();
      /** Synchronous (noble) signers, by material. */
      syncSign = new BoundedMap(KEY_CACHE_MAX_ENTRIES);
      syncByJwk = /* @__PURE__ */ new WeakMap();
      verifyByCryptoKey = /* @__PURE__ */ new WeakMap();
      signByCryptoKey = /* @__PURE__ */ new WeakMap();
      forProvider(provider) {
        let cache = this.byProvider.get(provider);
        if (cache === void 0) {
          cache = {
            verify: new BoundedMap(KEY_CACHE_MAX_ENTRIES),
            sign: new BoundedMap(KEY_CACHE_MAX_ENTRIES),
            verifyByJwk: /* @__PURE__ */ new WeakMap(),
            signByJwk: /* @__PURE__ */ new WeakMap()
          };
          this.byProvider.set(provider, cache);
        }
        return cache;
      }
      clear() {
        this.byProvider = /* @__PURE__ */ new WeakMap();
        this.syncSign = new BoundedMap(KEY_CACHE_MAX_ENTRIES);
        this.syncByJwk = /* @__PURE__ */ new WeakMap();
        this.verifyByCryptoKey = /* @__PURE__ */ new WeakMap();
        this.signByCryptoKey = /* @__PURE__ */ new WeakMap();
      }
    };
    keyCache = new KeyCache();
  }
});

// ../head/src/crypto/keys/objects.ts
function isSigningKey(value) {
  const v = value;
  return typeof v === "object" && v !== null && typeof v.sign === "function" && typeof v.thumbprint === "string" && isAlgorithmName(v.alg) && typeof v.publicJwk === "object";
}
function isVerifyingKey(value) {
  const v = value;
  if (typeof v !== "object" || v === null || typeof v.verify !== "function" || typeof v.thumbprint !== "string" || typeof v.jwk !== "object") return false;
  if (isAlgorithmName(v.alg)) return true;
  const list = v.algorithms;
  return v.alg === void 0 && Array.isArray(list) && list.length > 0 && list.every(isAlgorithmName);
}
function toPlainBytes(bytes2) {
  return bytes2.constructor === Uint8Array ? bytes2 : new Uint8Array(bytes2.buffer, bytes2.byteOffset, bytes2.byteLength);
}
function makeVerifyingKey(alg, thumbprint, jwk, fn, signatureBytes, synchronous) {
  const verify3 = async (data, signature) => {
    if (!(data instanceof Uint8Array) || !(signature instanceof Uint8Array)) throw new TypeError("data and signature must be Uint8Arrays");
    if (signature.length !== signatureBytes) return false;
    try {
      return await fn(data, signature) === true;
    } catch {
      return false;
    }
  };
  const key = Object.freeze({ alg, algorithms: ONLY.get(alg), thumbprint, jwk, verify: verify3 });
  verifyInternals.set(key, { fn, signatureBytes, synchronous });
  return key;
}
function makeSigningKey(alg, thumbprint, publicJwk, fn, synchronous) {
  const key = makeSigningKeyObject(alg, thumbprint, publicJwk, fn, synchronous);
  signInternals.set(key, { fn, synchronous });
  return key;
}
function makeSigningKeyObject(alg, thumbprint, publicJwk, fn, synchronous) {
  const sign2 = async (data) => {
    if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
    try {
      return toPlainBytes(await fn(data));
    } catch (error) {
      if (isBotsigError(error)) throw error;
      throw new BotsigError("ERR_CRYPTO_UNSUPPORTED", `signing with ${alg} failed`, { cause: error });
    }
  };
  if (!synchronous) return Object.freeze({ alg, thumbprint, publicJwk, sign: sign2 });
  const signSync = (data) => {
    if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
    const out = fn(data);
    if (out instanceof Promise) throw new BotsigError("ERR_CRYPTO_UNSUPPORTED", "this provider cannot sign synchronously");
    return toPlainBytes(out);
  };
  return Object.freeze({ alg, thumbprint, publicJwk, sign: sign2, signSync });
}
var verifyInternals, signInternals, ONLY;
var init_objects = __esm({
  "../head/src/crypto/keys/objects.ts"() {
    "use strict";
    init_errors();
    init_registry();
    init_process_wide();
    verifyInternals = processWide("verify-internals.v1", () => /* @__PURE__ */ new WeakMap());
    signInternals = processWide("sign-internals.v1", () => /* @__PURE__ */ new WeakMap());
    ONLY = new Map(ALGORITHMS.map((a) => [a, Object.freeze([a])]));
  }
});

// ../head/src/crypto/keys/binding.ts
function algorithmUndetermined(algorithms) {
  return new BotsigError(
    "ERR_ALG_UNKNOWN",
    `neither the signature (alg parameter) nor the key names the algorithm, and the key allows ${algorithms?.join(" or ") ?? "several"} (RFC 9421 \xA73.2 step 6)`
  );
}
function makeUnboundKey(thumbprint, jwk, variants) {
  const algorithms = Object.freeze([...variants.keys()]);
  const verify3 = () => Promise.reject(algorithmUndetermined(algorithms));
  const key = Object.freeze({ alg: void 0, algorithms, thumbprint, jwk, verify: verify3 });
  boundVariants.set(key, variants);
  return key;
}
function keyForAlgorithm(key, alg) {
  if (typeof key !== "object" || key === null) throw new TypeError("key must be a VerifyingKey");
  const own4 = key.alg;
  if (own4 !== void 0) {
    if (alg === void 0 || alg === own4) return key;
    return new BotsigError("ERR_ALG_MISMATCH", `alg ${alg} does not match the key (${own4})`);
  }
  if (alg === void 0) return algorithmUndetermined(key.algorithms);
  const variants = boundVariants.get(key);
  const bound = variants?.get(alg);
  if (bound !== void 0) return bound;
  if (variants === void 0 && key.algorithms?.includes(alg) === true) {
    return new BotsigError("ERR_ALG_UNKNOWN", `the key names no algorithm and was not imported by botsig, so it cannot be bound to ${alg}`);
  }
  return new BotsigError("ERR_ALG_MISMATCH", `alg ${alg} does not fit the key (it serves ${key.algorithms?.join(", ") ?? "other algorithms"})`);
}
var boundVariants;
var init_binding = __esm({
  "../head/src/crypto/keys/binding.ts"() {
    "use strict";
    init_errors();
    init_process_wide();
    boundVariants = processWide("bound-variants.v1", () => /* @__PURE__ */ new WeakMap());
  }
});

// ../head/src/crypto/keys/base.ts
function verifyBase(key, base, signature) {
  if (typeof base !== "string") throw new TypeError("base must be a string");
  const internals = verifyInternals.get(key);
  const data = internals?.synchronous === true ? scratch.encode(base) : void 0;
  if (internals === void 0 || data === void 0) {
    if (typeof key !== "object" || key === null || typeof key.verify !== "function") throw new TypeError("key must be a VerifyingKey");
    return key.verify(utf8(base), signature);
  }
  if (!(signature instanceof Uint8Array)) throw new TypeError("data and signature must be Uint8Arrays");
  if (signature.length !== internals.signatureBytes) return false;
  try {
    const ok = internals.fn(data, signature);
    if (ok instanceof Promise) {
      internals.synchronous = false;
      ok.catch(() => void 0);
      return key.verify(utf8(base), signature);
    }
    return ok === true;
  } catch {
    return false;
  }
}
function signBase(key, base) {
  return signBaseWith(key, signInternals.get(key), base);
}
function signingInternals(key) {
  return signInternals.get(key);
}
function signBaseWith(key, internals, base) {
  if (typeof base !== "string") throw new TypeError("base must be a string");
  const data = internals?.synchronous === true ? scratch.encode(base) : void 0;
  if (internals !== void 0 && data === void 0) return key.sign(utf8(base));
  if (internals === void 0 || data === void 0) {
    if (typeof key !== "object" || key === null || typeof key.sign !== "function") throw new TypeError("key must be a SigningKey");
    return key.signSync !== void 0 ? key.signSync(utf8(base)) : key.sign(utf8(base));
  }
  let out;
  try {
    out = internals.fn(data);
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw new BotsigError("ERR_CRYPTO_UNSUPPORTED", `signing with ${key.alg} failed`, { cause: error });
  }
  if (out instanceof Promise) {
    internals.synchronous = false;
    out.catch(() => void 0);
    return key.sign(utf8(base));
  }
  return toPlainBytes(out);
}
var SCRATCH_MAX_BYTES, ScratchEncoder, scratch;
var init_base = __esm({
  "../head/src/crypto/keys/base.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_objects();
    SCRATCH_MAX_BYTES = 1 << 16;
    ScratchEncoder = class {
      buffer = new Uint8Array(1024);
      encoder = new TextEncoder();
      /** `base` as UTF-8 in the shared buffer (valid until the next call), or `undefined` when too long for it. */
      encode(base) {
        const bound = base.length * 3;
        if (bound > SCRATCH_MAX_BYTES) return void 0;
        if (this.buffer.length < bound) this.buffer = new Uint8Array(Math.max(bound, this.buffer.length * 2));
        return this.buffer.subarray(0, this.encoder.encodeInto(base, this.buffer).written);
      }
    };
    scratch = new ScratchEncoder();
  }
});

// ../head/src/crypto/sha256.ts
function compress(h, data) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let offset = 0; offset < data.length; offset += 64) {
    for (let t = 0; t < 16; t++) W[t] = view.getUint32(offset + 4 * t);
    for (let t = 16; t < 64; t++) {
      const w15 = W[t - 15];
      const w2 = W[t - 2];
      const s0 = (w15 >>> 7 | w15 << 25) ^ (w15 >>> 18 | w15 << 14) ^ w15 >>> 3;
      const s1 = (w2 >>> 17 | w2 << 15) ^ (w2 >>> 19 | w2 << 13) ^ w2 >>> 10;
      W[t] = W[t - 16] + s0 + W[t - 7] + s1 | 0;
    }
    let a = h[0];
    let b = h[1];
    let c = h[2];
    let d = h[3];
    let e = h[4];
    let f = h[5];
    let g = h[6];
    let hh = h[7];
    for (let t = 0; t < 64; t++) {
      const S1 = (e >>> 6 | e << 26) ^ (e >>> 11 | e << 21) ^ (e >>> 25 | e << 7);
      const ch = e & f ^ ~e & g;
      const t1 = hh + S1 + ch + K[t] + W[t] | 0;
      const S0 = (a >>> 2 | a << 30) ^ (a >>> 13 | a << 19) ^ (a >>> 22 | a << 10);
      const maj = a & b ^ a & c ^ b & c;
      const t2 = S0 + maj | 0;
      hh = g;
      g = f;
      f = e;
      e = d + t1 | 0;
      d = c;
      c = b;
      b = a;
      a = t1 + t2 | 0;
    }
    h[0] = h[0] + a | 0;
    h[1] = h[1] + b | 0;
    h[2] = h[2] + c | 0;
    h[3] = h[3] + d | 0;
    h[4] = h[4] + e | 0;
    h[5] = h[5] + f | 0;
    h[6] = h[6] + g | 0;
    h[7] = h[7] + hh | 0;
  }
}
function finish(h, prefixBytes, data) {
  const full = data.length - data.length % 64;
  compress(h, data.subarray(0, full));
  const rest = data.length - full;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(data.subarray(full));
  tail[rest] = 128;
  const bits = (prefixBytes + data.length) * 8;
  const tailView = new DataView(tail.buffer);
  tailView.setUint32(tail.length - 8, Math.floor(bits / 4294967296));
  tailView.setUint32(tail.length - 4, bits >>> 0);
  compress(h, tail);
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]);
  return out;
}
function sha256(data) {
  if (!(data instanceof Uint8Array)) throw new TypeError("sha256() hashes a Uint8Array");
  return finish(Uint32Array.from(H0), 0, data);
}
function hmacSha256(key) {
  if (!(key instanceof Uint8Array)) throw new TypeError("hmacSha256() takes a Uint8Array key");
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256(key) : key);
  const inner = Uint32Array.from(H0);
  const outer = Uint32Array.from(H0);
  const pad = new Uint8Array(64);
  for (let i = 0; i < 64; i++) pad[i] = block[i] ^ 54;
  compress(inner, pad);
  for (let i = 0; i < 64; i++) pad[i] = block[i] ^ 92;
  compress(outer, pad);
  return (message) => {
    if (!(message instanceof Uint8Array)) throw new TypeError("the HMAC message must be a Uint8Array");
    const innerDigest = finish(inner.slice(), 64, message);
    return finish(outer.slice(), 64, innerDigest);
  };
}
var K, H0, W;
var init_sha256 = __esm({
  "../head/src/crypto/sha256.ts"() {
    "use strict";
    K = new Uint32Array([
      1116352408,
      1899447441,
      3049323471,
      3921009573,
      961987163,
      1508970993,
      2453635748,
      2870763221,
      3624381080,
      310598401,
      607225278,
      1426881987,
      1925078388,
      2162078206,
      2614888103,
      3248222580,
      3835390401,
      4022224774,
      264347078,
      604807628,
      770255983,
      1249150122,
      1555081692,
      1996064986,
      2554220882,
      2821834349,
      2952996808,
      3210313671,
      3336571891,
      3584528711,
      113926993,
      338241895,
      666307205,
      773529912,
      1294757372,
      1396182291,
      1695183700,
      1986661051,
      2177026350,
      2456956037,
      2730485921,
      2820302411,
      3259730800,
      3345764771,
      3516065817,
      3600352804,
      4094571909,
      275423344,
      430227734,
      506948616,
      659060556,
      883997877,
      958139571,
      1322822218,
      1537002063,
      1747873779,
      1955562222,
      2024104815,
      2227730452,
      2361852424,
      2428436474,
      2756734187,
      3204031479,
      3329325298
    ]);
    H0 = [1779033703, 3144134277, 1013904242, 2773480762, 1359893119, 2600822924, 528734635, 1541459225];
    W = new Uint32Array(64);
  }
});

// ../head/src/crypto/thumbprint.ts
function thumbprintInput(jwk) {
  if (typeof jwk !== "object" || jwk === null) throw new TypeError("jwk must be an object");
  const kty = jwk.kty;
  const members = typeof kty === "string" && Object.prototype.hasOwnProperty.call(REQUIRED, kty) ? REQUIRED[kty] : void 0;
  if (members === void 0) throw new BotsigError("ERR_KEY_INVALID", "unsupported or missing JWK kty for a thumbprint");
  let out = "{";
  for (let i = 0; i < members.length; i++) {
    const name = members[i];
    const value = jwk[name];
    if (typeof value !== "string" || value.length === 0 || value.length > MAX_MEMBER_CHARS) {
      throw new BotsigError("ERR_KEY_INVALID", `JWK member "${name}" is missing or not a valid string`);
    }
    out += (i === 0 ? '"' : ',"') + name + '":' + JSON.stringify(value);
  }
  return out + "}";
}
async function jwkThumbprint(jwk) {
  const input = utf8(thumbprintInput(jwk));
  const subtle = globalThis.crypto?.subtle;
  if (subtle === void 0) return base64UrlEncode(sha256(input));
  return base64UrlEncode(new Uint8Array(await subtle.digest("SHA-256", input)));
}
function jwkThumbprintSync(jwk) {
  return base64UrlEncode(sha256(utf8(thumbprintInput(jwk))));
}
var REQUIRED, MAX_MEMBER_CHARS;
var init_thumbprint = __esm({
  "../head/src/crypto/thumbprint.ts"() {
    "use strict";
    init_sha256();
    init_base64();
    init_errors();
    REQUIRED = {
      RSA: ["e", "kty", "n"],
      EC: ["crv", "kty", "x", "y"],
      OKP: ["crv", "kty", "x"]
    };
    MAX_MEMBER_CHARS = 16384;
  }
});

// ../head/src/crypto/keys/material.ts
function invalid(message, cause) {
  return new BotsigError("ERR_KEY_INVALID", message, cause === void 0 ? void 0 : { cause });
}
function decodeMember(jwk, name) {
  const value = jwk[name];
  if (value === void 0) return void 0;
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_MEMBER_CHARS2 || value.charCodeAt(value.length - 1) === 61) {
    throw invalid(`JWK member "${name}" is not a base64url string`);
  }
  const bytes2 = base64UrlDecode(value);
  if (bytes2 === void 0) throw invalid(`JWK member "${name}" is not a base64url string`);
  return bytes2;
}
function requireMember(jwk, name, length) {
  const bytes2 = decodeMember(jwk, name);
  if (bytes2 === void 0) throw invalid(`JWK member "${name}" is missing`);
  if (length !== void 0 && bytes2.length !== length) throw invalid(`JWK member "${name}" must be ${length} bytes`);
  return bytes2;
}
function checkMaterial(jwk, alg, needPrivate) {
  checkUse(jwk);
  const spec = algorithmSpec(alg);
  const pub = { kty: spec.kty };
  let signatureBytes;
  if (spec.kty === "RSA") {
    const n = requireMember(jwk, "n");
    let start = 0;
    while (start < n.length && n[start] === 0) start++;
    const bits = start === n.length ? 0 : (n.length - start - 1) * 8 + (32 - Math.clz32(n[start]));
    if (bits < RSA_MIN_MODULUS_BITS || bits > RSA_MAX_MODULUS_BITS) {
      throw invalid(`RSA modulus must have ${RSA_MIN_MODULUS_BITS} to ${RSA_MAX_MODULUS_BITS} bits`);
    }
    const e = requireMember(jwk, "e");
    if (e.length === 0 || e.length > 8 || (e[e.length - 1] & 1) === 0) throw invalid("RSA public exponent is not valid");
    pub.n = jwk.n;
    pub.e = jwk.e;
    signatureBytes = Math.ceil(bits / 8);
  } else {
    const size = spec.keyBytes;
    pub.crv = spec.crv;
    requireMember(jwk, "x", size);
    pub.x = jwk.x;
    if (spec.kty === "EC") {
      requireMember(jwk, "y", size);
      pub.y = jwk.y;
    }
    signatureBytes = spec.signatureBytes;
  }
  if (!needPrivate) return { publicMaterial: pub, signatureBytes };
  const priv = { ...pub };
  if (jwk.d === void 0) throw invalid('a signing key needs the private member "d"');
  requireMember(jwk, "d", spec.kty === "RSA" ? void 0 : spec.keyBytes);
  priv.d = jwk.d;
  if (spec.kty === "RSA") {
    for (const name of ["p", "q", "dp", "dq", "qi"]) {
      if (decodeMember(jwk, name) !== void 0) priv[name] = jwk[name];
    }
  }
  return { publicMaterial: pub, privateMaterial: priv, signatureBytes };
}
function publicJwkOf(jwk) {
  const out = {};
  for (const name of Object.keys(jwk)) {
    if (NOT_PUBLIC.has(name)) continue;
    const value = jwk[name];
    out[name] = Array.isArray(value) ? Object.freeze(value.slice()) : value;
  }
  return Object.freeze(out);
}
function privateFingerprint(d) {
  return base64UrlEncode(sha256(utf8(d)));
}
function materialId(jwk, alg) {
  const members = MATERIAL_MEMBERS[algorithmSpec(alg).kty];
  let id = alg;
  for (const name of members) {
    const value = jwk[name];
    if (typeof value !== "string") return void 0;
    id += "\n" + value;
  }
  return id;
}
function checkUse(jwk) {
  if (jwk.use !== void 0 && jwk.use !== "sig") throw invalid('the JWK "use" is not "sig"');
}
function asJwk(key) {
  if (Array.isArray(key)) throw invalid("a JWK must be a JSON object, not an array");
  if (typeof key.kty !== "string") throw invalid('JWK member "kty" is missing');
  return key;
}
function checkOptions(options) {
  if (options === void 0) return {};
  if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
  if (options.alg !== void 0 && !isAlgorithmName(options.alg)) throw new TypeError("options.alg must be a supported algorithm name");
  return options;
}
async function providerCall(alg, call) {
  try {
    return await call();
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw invalid(`the key material was rejected for ${alg}`, error);
  }
}
var MAX_MEMBER_CHARS2, NOT_PUBLIC, SELF_TEST_MESSAGE, MATERIAL_MEMBERS;
var init_material = __esm({
  "../head/src/crypto/keys/material.ts"() {
    "use strict";
    init_sha256();
    init_base64();
    init_errors();
    init_registry();
    MAX_MEMBER_CHARS2 = 4096;
    NOT_PUBLIC = /* @__PURE__ */ new Set(["d", "p", "q", "dp", "dq", "qi", "oth", "k", "key_ops", "ext"]);
    SELF_TEST_MESSAGE = utf8("botsig: private and public key agree");
    MATERIAL_MEMBERS = { OKP: ["x"], EC: ["x", "y"], RSA: ["n", "e"] };
  }
});

// ../head/src/crypto/keys/crypto-key.ts
function isCryptoKey(value) {
  if (typeof CryptoKey === "function" && value instanceof CryptoKey) return true;
  const v = value;
  return typeof v.type === "string" && typeof v.algorithm === "object" && Array.isArray(v.usages) && typeof v.extractable === "boolean";
}
function isCryptoKeyPair(value) {
  const v = value;
  return typeof v.privateKey === "object" && v.privateKey !== null && isCryptoKey(v.privateKey) && typeof v.publicKey === "object" && v.publicKey !== null && isCryptoKey(v.publicKey);
}
async function exportJwk(key) {
  try {
    return await getSubtle().exportKey("jwk", key);
  } catch (cause) {
    throw invalid("the CryptoKey is not extractable, so its thumbprint cannot be computed", cause);
  }
}
function cryptoKeyAlgorithm(key, requested) {
  const alg = algorithmFromWebCryptoKey(key.algorithm);
  if (alg === void 0) throw new BotsigError("ERR_ALG_UNKNOWN", "the CryptoKey algorithm has no RFC 9421 equivalent");
  if (requested !== void 0 && requested !== alg) throw new BotsigError("ERR_ALG_MISMATCH", `the CryptoKey is for ${alg}, not ${requested}`);
  return alg;
}
function publicFromExported(exported, alg) {
  const { publicMaterial, signatureBytes } = checkMaterial(exported, alg, false);
  const jwk = Object.freeze(inferAlgorithm(publicMaterial) === alg ? publicMaterial : { ...publicMaterial, alg });
  return { jwk, thumbprint: jwkThumbprintSync(jwk), signatureBytes };
}
var init_crypto_key = __esm({
  "../head/src/crypto/keys/crypto-key.ts"() {
    "use strict";
    init_errors();
    init_registry();
    init_thumbprint();
    init_webcrypto();
    init_material();
  }
});

// ../head/src/crypto/keys/verifying.ts
async function importVerifyingKey(key, options) {
  if (typeof key !== "object" || key === null) throw new TypeError("key must be a JWK, a CryptoKey or a VerifyingKey");
  const opts = checkOptions(options);
  if (isVerifyingKey(key)) {
    if (opts.alg === void 0) return key;
    const bound = keyForAlgorithm(key, opts.alg);
    if (bound instanceof BotsigError) throw bound;
    return bound;
  }
  if (isCryptoKey(key)) return importVerifyingCryptoKey(key, opts.alg);
  const jwk = asJwk(key);
  const provider = opts.provider ?? getCryptoProvider();
  const cache = keyCache.forProvider(provider);
  const prior = cache.verifyByJwk.get(jwk);
  if (prior !== void 0 && sameSnapshot(prior.snap, jwk, opts.alg)) return prior.key;
  const open = opts.alg === void 0 && jwk.alg === void 0 ? keyTypeAlgorithms(jwk) : NO_ALGORITHMS;
  const result = open.length > 1 ? importUnbound(jwk, open, provider, cache) : importBound(jwk, algorithmForJwk(jwk, opts.alg), provider, cache);
  cache.verifyByJwk.set(jwk, { snap: snapshot(jwk, opts.alg), key: result });
  result.catch(() => {
    if (cache.verifyByJwk.get(jwk)?.key === result) cache.verifyByJwk.delete(jwk);
  });
  return result;
}
function keyTypeAlgorithms(jwk) {
  return ALGORITHMS.filter((alg) => jwkFitsAlgorithm(jwk, alg));
}
function importedVerify(jwk, alg, provider, cache) {
  const id = materialId(jwk, alg);
  const hit = id === void 0 ? void 0 : cache.verify.getRecent(id);
  if (hit !== void 0) return hit;
  const checked = checkMaterial(jwk, alg, false);
  const thumbprint = jwkThumbprintSync(jwk);
  const key = id;
  const pending = providerCall(alg, async () => ({
    verify: await provider.importVerify(checked.publicMaterial, alg),
    thumbprint,
    signatureBytes: checked.signatureBytes
  }));
  cache.verify.set(key, pending);
  pending.catch(() => forgetIfSame(cache.verify, key, pending));
  return pending;
}
function importBound(jwk, alg, provider, cache) {
  checkUse(jwk);
  const imported = importedVerify(jwk, alg, provider, cache);
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  return imported.then((i) => makeVerifyingKey(alg, i.thumbprint, publicJwk, i.verify, i.signatureBytes, synchronous));
}
function importUnbound(jwk, algorithms, provider, cache) {
  checkUse(jwk);
  const pending = algorithms.map((alg) => importedVerify(jwk, alg, provider, cache));
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  return Promise.allSettled(pending).then((settled) => {
    const variants = /* @__PURE__ */ new Map();
    let thumbprint;
    let failure2;
    settled.forEach((outcome, index) => {
      if (outcome.status === "rejected") {
        failure2 ??= outcome.reason;
        return;
      }
      const alg = algorithms[index];
      const imported = outcome.value;
      thumbprint = imported.thumbprint;
      variants.set(alg, makeVerifyingKey(alg, imported.thumbprint, publicJwk, imported.verify, imported.signatureBytes, synchronous));
    });
    if (thumbprint === void 0) throw failure2;
    return makeUnboundKey(thumbprint, publicJwk, variants);
  });
}
async function importVerifyingCryptoKey(key, requested) {
  let pending = keyCache.verifyByCryptoKey.get(key);
  if (pending === void 0) {
    pending = (async () => {
      if (key.type === "secret") throw new BotsigError("ERR_ALG_NOT_ALLOWED", "symmetric (shared-secret) keys are not allowed");
      if (key.type !== "public") throw invalid("verifying needs a public CryptoKey");
      const alg = cryptoKeyAlgorithm(key, void 0);
      if (!key.usages.includes("verify")) throw invalid('the CryptoKey is not usable for "verify"');
      const { jwk, thumbprint, signatureBytes } = publicFromExported(await exportJwk(key), alg);
      return makeVerifyingKey(alg, thumbprint, jwk, webCryptoVerifier(key, alg), signatureBytes, false);
    })();
    keyCache.verifyByCryptoKey.set(key, pending);
    const failed2 = pending;
    failed2.catch(() => {
      if (keyCache.verifyByCryptoKey.get(key) === failed2) keyCache.verifyByCryptoKey.delete(key);
    });
  }
  const result = await pending;
  if (requested !== void 0 && result.alg !== requested) throw new BotsigError("ERR_ALG_MISMATCH", `the CryptoKey is for ${result.alg}, not ${requested}`);
  return result;
}
var NO_ALGORITHMS;
var init_verifying = __esm({
  "../head/src/crypto/keys/verifying.ts"() {
    "use strict";
    init_errors();
    init_provider();
    init_registry();
    init_thumbprint();
    init_webcrypto();
    init_binding();
    init_cache();
    init_crypto_key();
    init_material();
    init_objects();
    NO_ALGORITHMS = Object.freeze([]);
  }
});

// ../head/src/crypto/keys/signing.ts
async function importSigningKey(key, options) {
  if (typeof key !== "object" || key === null) throw new TypeError("key must be a JWK, a CryptoKey, a CryptoKeyPair or a SigningKey");
  const opts = checkOptions(options);
  if (isSigningKey(key)) {
    if (opts.alg !== void 0 && key.alg !== opts.alg) throw new BotsigError("ERR_ALG_MISMATCH", `the key is for ${key.alg}, not ${opts.alg}`);
    return key;
  }
  if (isCryptoKeyPair(key)) return importSigningCryptoKey(key.privateKey, key.publicKey, opts.alg);
  if (isCryptoKey(key)) return importSigningCryptoKey(key, void 0, opts.alg);
  const jwk = asJwk(key);
  const provider = opts.provider ?? getCryptoProvider();
  const cache = keyCache.forProvider(provider);
  const prior = cache.signByJwk.get(jwk);
  if (prior !== void 0 && sameSnapshot(prior.snap, jwk, opts.alg)) return prior.key;
  const alg = algorithmForJwk(jwk, opts.alg);
  checkUse(jwk);
  const publicId = materialId(jwk, alg);
  const id = publicId === void 0 || typeof jwk.d !== "string" ? void 0 : publicId + "\n" + privateFingerprint(jwk.d);
  let imported = id === void 0 ? void 0 : cache.sign.getRecent(id);
  if (imported === void 0) {
    const checked = checkMaterial(jwk, alg, true);
    const thumbprint = jwkThumbprintSync(jwk);
    const key2 = id;
    const pending = providerCall(alg, async () => {
      const sign2 = await provider.importSign(checked.privateMaterial, alg);
      const verify3 = await provider.importVerify(checked.publicMaterial, alg);
      let agrees = false;
      try {
        agrees = await verify3(SELF_TEST_MESSAGE, toPlainBytes(await sign2(SELF_TEST_MESSAGE))) === true;
      } catch (cause) {
        throw invalid("the private key could not sign", cause);
      }
      if (!agrees) throw invalid("the private key does not match the public members of the JWK");
      return { sign: sign2, thumbprint };
    });
    imported = pending;
    cache.sign.set(key2, pending);
    pending.catch(() => forgetIfSame(cache.sign, key2, pending));
  }
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  const result = imported.then((i) => makeSigningKey(alg, i.thumbprint, publicJwk, i.sign, synchronous));
  cache.signByJwk.set(jwk, { snap: snapshot(jwk, opts.alg), key: result });
  result.catch(() => {
    if (cache.signByJwk.get(jwk)?.key === result) cache.signByJwk.delete(jwk);
  });
  return result;
}
async function importSigningCryptoKey(privateKey, publicKey, requested) {
  let pending = keyCache.signByCryptoKey.get(privateKey);
  if (pending === void 0) {
    pending = (async () => {
      if (privateKey.type === "secret") throw new BotsigError("ERR_ALG_NOT_ALLOWED", "symmetric (shared-secret) keys are not allowed");
      if (privateKey.type !== "private") throw invalid("signing needs a private CryptoKey");
      const alg = cryptoKeyAlgorithm(privateKey, void 0);
      if (!privateKey.usages.includes("sign")) throw invalid('the CryptoKey is not usable for "sign"');
      if (publicKey !== void 0) {
        if (publicKey.type !== "public") throw invalid("CryptoKeyPair.publicKey is not a public key");
        if (algorithmFromWebCryptoKey(publicKey.algorithm) !== alg)
          throw new BotsigError("ERR_ALG_MISMATCH", "the CryptoKeyPair halves use different algorithms");
      }
      const exported = await exportJwk(publicKey ?? privateKey);
      const { jwk, thumbprint } = publicFromExported(exported, alg);
      const sign2 = webCryptoSigner(privateKey, alg);
      if (publicKey !== void 0 && publicKey.usages.includes("verify")) {
        const agrees = await webCryptoVerifier(publicKey, alg)(SELF_TEST_MESSAGE, await sign2(SELF_TEST_MESSAGE));
        if (!agrees) throw invalid("the CryptoKeyPair halves do not belong together");
      }
      return makeSigningKey(alg, thumbprint, jwk, sign2, false);
    })();
    keyCache.signByCryptoKey.set(privateKey, pending);
    const failed2 = pending;
    failed2.catch(() => {
      if (keyCache.signByCryptoKey.get(privateKey) === failed2) keyCache.signByCryptoKey.delete(privateKey);
    });
  }
  const result = await pending;
  if (requested !== void 0 && result.alg !== requested) throw new BotsigError("ERR_ALG_MISMATCH", `the CryptoKey is for ${result.alg}, not ${requested}`);
  return result;
}
var init_signing = __esm({
  "../head/src/crypto/keys/signing.ts"() {
    "use strict";
    init_errors();
    init_provider();
    init_registry();
    init_thumbprint();
    init_webcrypto();
    init_cache();
    init_crypto_key();
    init_material();
    init_objects();
  }
});

// ../head/src/crypto/keys.ts
var init_keys = __esm({
  "../head/src/crypto/keys.ts"() {
    "use strict";
    init_objects();
    init_binding();
    init_base();
    init_verifying();
    init_signing();
  }
});

// ../head/src/httpsig/component-id.ts
function isFieldName(name) {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128 || FIELD_CHAR[c] !== 1) return false;
  }
  return true;
}
function isToken(s) {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) continue;
    if (c >= 128 || FIELD_CHAR[c] !== 1) return false;
  }
  return true;
}
function parseComponentIdentifier(text) {
  if (typeof text !== "string") throw new TypeError("component identifier must be a string");
  let source = text;
  if (text.charCodeAt(0) !== 34) {
    const semi = text.indexOf(";");
    let name = (semi < 0 ? text : text.slice(0, semi)).trim();
    const derived = name.charCodeAt(0) === 64;
    if (!derived) name = name.toLowerCase();
    if (!isFieldName(derived ? name.slice(1) : name)) {
      throw new BotsigError("ERR_COMPONENT_INVALID", "component name is not a field name or @-name");
    }
    source = '"' + name + '"' + (semi < 0 ? "" : text.slice(semi));
  }
  let parsed;
  try {
    parsed = parseItem(source);
  } catch (err) {
    throw new BotsigError("ERR_COMPONENT_INVALID", "component identifier is not a String Item with parameters", { cause: err });
  }
  if (parsed.value.type !== "string") throw new BotsigError("ERR_COMPONENT_INVALID", "component identifier must be a String");
  return { name: parsed.value.value, params: parsed.params };
}
function serializeComponentIdentifier(id) {
  try {
    return serializeBareItem({ type: "string", value: id.name }) + (id.params.size === 0 ? "" : serializeParameters(id.params));
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError("ERR_COMPONENT_INVALID", "component identifier cannot be serialised", { cause: err });
    throw err;
  }
}
var FIELD_CHAR;
var init_component_id = __esm({
  "../head/src/httpsig/component-id.ts"() {
    "use strict";
    init_errors();
    init_sf_parse();
    init_sf_serialize();
    FIELD_CHAR = new Uint8Array(128);
    for (const ch of "abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~") FIELD_CHAR[ch.charCodeAt(0)] = 1;
  }
});

// ../head/src/httpsig/query-param.ts
function queryParamValues(query, encodedName) {
  const ranges = queryIndex(query).get(encodedName);
  if (ranges === void 0) return [];
  const out = new Array(ranges.length >> 1);
  for (let i = 0; i < ranges.length; i += 2) {
    const from = ranges[i];
    const to = ranges[i + 1];
    out[i >> 1] = from === to ? "" : reencode(query, from, to);
  }
  return out;
}
function queryIndex(query) {
  if (query === lastQuery) {
    lastQuery = query;
    return lastIndex;
  }
  const index = /* @__PURE__ */ new Map();
  const n = query.length;
  let start = 0;
  while (start < n) {
    let end = start;
    let eq = -1;
    for (; end < n; end++) {
      const c = query.charCodeAt(end);
      if (c === 38) break;
      if (c === 61 && eq < 0) eq = end;
    }
    if (end > start) {
      if (eq < 0) eq = end;
      const name = reencode(query, start, eq);
      const valueStart = eq === end ? end : eq + 1;
      const ranges = index.get(name);
      if (ranges === void 0) index.set(name, [valueStart, end]);
      else ranges.push(valueStart, end);
    }
    start = end + 1;
  }
  lastQuery = query;
  lastIndex = index;
  return index;
}
function reencode(s, from, to) {
  let plain = true;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || FORM_SAFE[c] !== 1) {
      plain = false;
      break;
    }
  }
  if (plain) return s.slice(from, to);
  const bytes2 = percentDecode(s, from, to);
  const text = decoder.decode(bytes2);
  const utf82 = encoder2.encode(text);
  const out = new Uint8Array(utf82.length * 3);
  let o = 0;
  for (let i = 0; i < utf82.length; i++) {
    const b = utf82[i];
    if (b < 128 && FORM_SAFE[b] === 1) {
      out[o++] = b;
    } else {
      out[o++] = 37;
      out[o++] = HEX_CODES[b >> 4];
      out[o++] = HEX_CODES[b & 15];
    }
  }
  return decoder.decode(out.subarray(0, o));
}
function hexValue2(c) {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}
function percentDecode(s, from, to) {
  const src = encoder2.encode(s.slice(from, to));
  const out = new Uint8Array(src.length);
  let o = 0;
  for (let i = 0; i < src.length; i++) {
    const b = src[i];
    if (b === 43) {
      out[o++] = 32;
    } else if (b === 37 && i + 2 < src.length && hexValue2(src[i + 1]) >= 0 && hexValue2(src[i + 2]) >= 0) {
      out[o++] = hexValue2(src[i + 1]) << 4 | hexValue2(src[i + 2]);
      i += 2;
    } else {
      out[o++] = b;
    }
  }
  return out.subarray(0, o);
}
var FORM_SAFE, HEX_CODES, lastQuery, lastIndex, decoder, encoder2;
var init_query_param = __esm({
  "../head/src/httpsig/query-param.ts"() {
    "use strict";
    FORM_SAFE = new Uint8Array(128);
    for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._") FORM_SAFE[ch.charCodeAt(0)] = 1;
    HEX_CODES = new Uint8Array([..."0123456789ABCDEF"].map((ch) => ch.charCodeAt(0)));
    lastIndex = /* @__PURE__ */ new Map();
    decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    encoder2 = new TextEncoder();
  }
});

// ../head/src/httpsig/target-uri.ts
function messageTarget(message) {
  const url = message.url;
  if (url === void 0) throw new BotsigError("ERR_MESSAGE_INVALID", "the message has no target URI");
  if (url === lastUrl && lastTarget !== void 0) {
    lastUrl = url;
    return lastTarget;
  }
  const target = parseTargetUri(url);
  if (target === void 0) throw new BotsigError("ERR_MESSAGE_INVALID", "the message target URI is not an absolute URI");
  lastUrl = url;
  lastTarget = target;
  return target;
}
function parseTargetUri(url) {
  return fastTarget(url) ?? slowTarget(url);
}
function fastTarget(s) {
  let scheme;
  let i;
  if (s.startsWith("https://")) {
    scheme = "https";
    i = 8;
  } else if (s.startsWith("http://")) {
    scheme = "http";
    i = 7;
  } else {
    return void 0;
  }
  const n = s.length;
  const hostStart = i;
  let prev = 46;
  let last = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 97 && c <= 122 || c >= 48 && c <= 57 || c === 45) {
    } else if (c === 46) {
      if (prev === 46) return void 0;
    } else {
      break;
    }
    prev = c;
    last = c;
  }
  if (i === hostStart || !(last >= 97 && last <= 122)) return void 0;
  const host = s.slice(hostStart, i);
  let authority = host;
  if (i < n && s.charCodeAt(i) === 58) {
    const portStart = ++i;
    let port = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      port = port * 10 + (c - 48);
      if (port > 65535) return void 0;
    }
    const len = i - portStart;
    if (len === 0 || len > 1 && s.charCodeAt(portStart) === 48) return void 0;
    if (!(scheme === "https" && port === 443 || scheme === "http" && port === 80)) {
      authority = host + ":" + s.slice(portStart, i);
    }
  }
  let path = "/";
  if (i < n && s.charCodeAt(i) === 47) {
    const pathStart = i;
    let segStart = i + 1;
    for (; i <= n; i++) {
      const c = i < n ? s.charCodeAt(i) : 47;
      const last2 = i === n || c === 63 || c === 35;
      if (c === 47 || last2) {
        const len = i - segStart;
        if ((len === 1 || len === 2) && s.charCodeAt(segStart) === 46 && (len === 1 || s.charCodeAt(segStart + 1) === 46)) {
          return void 0;
        }
        if (last2) break;
        segStart = i + 1;
        continue;
      }
      if (c >= 128 || SAFE_PATH[c] !== 1) return void 0;
      if (c === 37 && s.charCodeAt(i + 1) === 50 && (s.charCodeAt(i + 2) | 32) === 101) return void 0;
    }
    if (i > n) i = n;
    path = s.slice(pathStart, i);
  } else if (i < n) {
    const c = s.charCodeAt(i);
    if (c !== 63 && c !== 35) return void 0;
  }
  let query;
  if (i < n && s.charCodeAt(i) === 63) {
    const queryStart = ++i;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c === 35) break;
      if (c >= 128 || SAFE_QUERY[c] !== 1) return void 0;
    }
    query = s.slice(queryStart, i);
  }
  const base = scheme + "://" + authority + path;
  return { scheme, authority, path, query, href: query === void 0 ? base : base + "?" + query };
}
function slowTarget(s) {
  let u;
  try {
    u = new URL(s);
  } catch {
    return void 0;
  }
  if (u.host === "" || u.hostname.includes("%")) return void 0;
  let href = u.href;
  const hash = href.indexOf("#");
  if (hash >= 0) href = href.slice(0, hash);
  const q = href.indexOf("?");
  const query = q >= 0 ? href.slice(q + 1) : void 0;
  const path = u.pathname === "" ? "/" : u.pathname;
  return { scheme: u.protocol.slice(0, -1), authority: u.host, path, query, href };
}
var lastUrl, lastTarget, SAFE_PATH, SAFE_QUERY;
var init_target_uri = __esm({
  "../head/src/httpsig/target-uri.ts"() {
    "use strict";
    init_errors();
    SAFE_PATH = new Uint8Array(128);
    for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/%'") {
      SAFE_PATH[ch.charCodeAt(0)] = 1;
    }
    SAFE_QUERY = new Uint8Array(128);
    for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/%?") {
      SAFE_QUERY[ch.charCodeAt(0)] = 1;
    }
  }
});

// ../head/src/httpsig/derived.ts
function requestOnly(message, name) {
  if (message.kind !== "request") throw new BotsigError("ERR_COMPONENT_INVALID", `${name} applies to requests only (use ;req on a response)`);
}
function derivedValue(message, name, qname) {
  switch (name) {
    case "@method": {
      requestOnly(message, name);
      const method = message.method ?? "GET";
      if (!isToken(method)) throw new BotsigError("ERR_MESSAGE_INVALID", "request method is not a token");
      return method;
    }
    case "@target-uri":
      requestOnly(message, name);
      return messageTarget(message).href;
    case "@authority":
      requestOnly(message, name);
      return messageTarget(message).authority;
    case "@scheme":
      requestOnly(message, name);
      return messageTarget(message).scheme;
    case "@request-target": {
      requestOnly(message, name);
      if (message.target !== void 0) {
        if (!isPrintable(message.target)) throw new BotsigError("ERR_MESSAGE_INVALID", "request-target has characters outside visible ASCII");
        return message.target;
      }
      const t = messageTarget(message);
      return t.query === void 0 ? t.path : t.path + "?" + t.query;
    }
    case "@path":
      requestOnly(message, name);
      return messageTarget(message).path;
    case "@query": {
      requestOnly(message, name);
      const q = messageTarget(message).query;
      return q === void 0 ? "?" : "?" + q;
    }
    case "@query-param": {
      requestOnly(message, name);
      if (qname === void 0) throw new BotsigError("ERR_COMPONENT_INVALID", "@query-param needs a name parameter");
      const values = queryParamValues(messageTarget(message).query ?? "", qname);
      if (values.length === 0) throw new BotsigError("ERR_COMPONENT_MISSING", "covered query parameter is absent");
      return values.length === 1 ? values[0] : values;
    }
    case "@status": {
      if (message.kind !== "response") throw new BotsigError("ERR_COMPONENT_INVALID", "@status applies to responses only");
      const status = message.status;
      if (status === void 0 || !Number.isInteger(status) || status < 100 || status > 999) {
        throw new BotsigError("ERR_MESSAGE_INVALID", "response status is not a three-digit integer");
      }
      return String(status);
    }
    case "@signature-params":
      throw new BotsigError("ERR_COMPONENT_INVALID", "@signature-params cannot be a covered component (RFC 9421 \xA72.3)");
    default:
      throw new BotsigError("ERR_COMPONENT_UNSUPPORTED", "unknown derived component");
  }
}
function isPrintable(s) {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 32 || c >= 127) return false;
  }
  return true;
}
var init_derived = __esm({
  "../head/src/httpsig/derived.ts"() {
    "use strict";
    init_errors();
    init_component_id();
    init_query_param();
    init_target_uri();
  }
});

// ../head/src/httpsig/field-lines.ts
function fieldBytes(value) {
  let wide = false;
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 255) {
      wide = true;
      break;
    }
  }
  if (wide) return encoder3.encode(value);
  const out = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = value.charCodeAt(i);
  return out;
}
function normalizeLine(line, bytes2) {
  if (FIELD_LINE.test(line)) return trimWS(line);
  const n = line.length;
  let fold = false;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c >= 32 && c < 127) continue;
    if (c === 9) continue;
    if (c === 13 || c === 10) {
      fold = true;
      continue;
    }
    if (!bytes2) throw new BotsigError("ERR_COMPONENT_INVALID", "field value has control or non-ASCII characters (use ;bs)");
  }
  return trimWS(fold ? unfold(line) : line);
}
function trimWS(s) {
  let a = 0;
  let b = s.length;
  while (a < b && isWS(s.charCodeAt(a))) a++;
  while (b > a && isWS(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}
function isWS(c) {
  return c === 32 || c === 9;
}
function unfold(line) {
  const n = line.length;
  const out = new Uint16Array(n);
  let o = 0;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c !== 13 && c !== 10) {
      out[o++] = c;
      continue;
    }
    let j = i + (c === 13 && line.charCodeAt(i + 1) === 10 ? 2 : c === 10 ? 1 : 0);
    if (j === i || !isWS(line.charCodeAt(j))) {
      throw new BotsigError("ERR_COMPONENT_INVALID", "field value has a line break that is not obs-fold");
    }
    while (j < n && isWS(line.charCodeAt(j))) j++;
    while (o > 0 && isWS(out[o - 1])) o--;
    out[o++] = 32;
    i = j - 1;
  }
  return fromCodes(out, o);
}
function fromCodes(codes2, length) {
  let s = "";
  for (let i = 0; i < length; i += CODES_CHUNK) {
    s += String.fromCharCode.apply(null, codes2.subarray(i, Math.min(length, i + CODES_CHUNK)));
  }
  return s;
}
var encoder3, FIELD_LINE, CODES_CHUNK;
var init_field_lines = __esm({
  "../head/src/httpsig/field-lines.ts"() {
    "use strict";
    init_errors();
    encoder3 = new TextEncoder();
    FIELD_LINE = /^[\t\x20-\x7e]*$/;
    CODES_CHUNK = 8192;
  }
});

// ../head/src/httpsig/structured-fields.ts
function structuredFieldType(name, options) {
  const extra = options?.structuredFields;
  if (extra !== void 0 && Object.hasOwn(extra, name)) return extra[name];
  return STRUCTURED_FIELDS.get(name);
}
var STRUCTURED_FIELDS;
var init_structured_fields = __esm({
  "../head/src/httpsig/structured-fields.ts"() {
    "use strict";
    STRUCTURED_FIELDS = /* @__PURE__ */ new Map([
      ["signature-input", "dictionary"],
      ["signature", "dictionary"],
      ["accept-signature", "dictionary"],
      ["signature-agent", "dictionary"],
      ["content-digest", "dictionary"],
      ["repr-digest", "dictionary"],
      ["want-content-digest", "dictionary"],
      ["want-repr-digest", "dictionary"],
      ["priority", "dictionary"],
      ["cdn-cache-control", "dictionary"],
      ["example-dict", "dictionary"],
      ["cache-status", "list"],
      ["proxy-status", "list"],
      ["accept-ch", "list"],
      ["sec-ch-ua", "list"],
      ["sec-ch-ua-full-version-list", "list"],
      ["client-cert", "item"],
      ["client-cert-chain", "list"],
      ["sec-ch-ua-mobile", "item"],
      ["sec-ch-ua-platform", "item"],
      ["sec-ch-ua-platform-version", "item"],
      ["sec-ch-ua-arch", "item"],
      ["sec-ch-ua-bitness", "item"],
      ["sec-ch-ua-model", "item"],
      ["sec-ch-ua-wow64", "item"],
      ["sec-fetch-dest", "item"],
      ["sec-fetch-mode", "item"],
      ["sec-fetch-site", "item"],
      ["sec-fetch-user", "item"]
    ]);
  }
});

// ../head/src/httpsig/field-values.ts
function fieldComponentValue(name, lines, key, sf, bs, options) {
  if (key !== void 0) return dictionaryMemberValue(name, lines, key, options);
  if (sf) return structuredValue(name, lines, options);
  if (!bs && lines.length === 1 && lines[0].length <= LONG_FIELD) return normalizeLine(lines[0], false);
  return linesValue(lines, bs);
}
function structuredValue(name, lines, options) {
  const type = structuredFieldType(name, options);
  if (type === void 0) {
    throw new BotsigError("ERR_COMPONENT_UNSUPPORTED", `the structured type of field ${name} is not known (RFC 9421 \xA72.1.1)`);
  }
  const parsed = structuredOf(longFieldMemo(lines) ?? newMemo(lines), type, name, type);
  if (parsed.serialized !== void 0) return parsed.serialized;
  const value = parsed.value;
  let text;
  try {
    text = type === "dictionary" ? serializeDictionary(value) : type === "list" ? serializeList(value) : serializeMember(value);
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError("ERR_COMPONENT_INVALID", `field ${name} is not a valid ${type}`, { cause: err });
    throw err;
  }
  parsed.serialized = text;
  return text;
}
function dictionaryMemberValue(name, lines, key, options) {
  const type = structuredFieldType(name, options);
  if (type !== void 0 && type !== "dictionary") {
    throw new BotsigError("ERR_COMPONENT_UNSUPPORTED", `field ${name} is not a Dictionary, key does not apply`);
  }
  const parsed = structuredOf(longFieldMemo(lines) ?? shortDictionaryMemo(lines), "dictionary", name, "Dictionary");
  if (key === parsed.key) return parsed.member;
  const member = parsed.value.get(key);
  if (member === void 0) throw new BotsigError("ERR_COMPONENT_MISSING", `field ${name} has no member with the covered key`);
  const value = serializeMember(member);
  parsed.key = key;
  parsed.member = value;
  return value;
}
function linesValue(lines, bs) {
  const memo = longFieldMemo(lines);
  if (memo === void 0) return bs ? byteSequenceValue(lines) : plainValue(lines);
  let done = bs ? memo.bytes : memo.plain;
  if (done === void 0) {
    try {
      done = bs ? byteSequenceValue(lines) : plainValue(lines);
    } catch (err) {
      if (!isBotsigError(err)) throw err;
      done = err;
    }
    if (bs) memo.bytes = done;
    else memo.plain = done;
  }
  if (typeof done !== "string") throw done;
  return done;
}
function plainValue(lines) {
  if (lines.length === 1) return normalizeLine(lines[0], false);
  let out = "";
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out += ", ";
    out += normalizeLine(lines[i], false);
  }
  return out;
}
function byteSequenceValue(lines) {
  let out = "";
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out += ", ";
    out += ":" + base64Encode(fieldBytes(normalizeLine(lines[i], true))) + ":";
  }
  return out;
}
function newMemo(lines) {
  return { lines: lines.slice(), plain: void 0, bytes: void 0, structured: void 0 };
}
function longFieldMemo(lines) {
  const n = lines.length;
  let total = 0;
  for (let i = 0; i < n && total <= LONG_FIELD; i++) total += lines[i].length;
  if (total <= LONG_FIELD) return void 0;
  let memo = longFields.get(lines);
  if (memo === void 0 || !sameLines(memo.lines, lines)) {
    memo = newMemo(lines);
    longFields.set(lines, memo);
  }
  return memo;
}
function shortDictionaryMemo(lines) {
  if (!sameLines(shortDictionary.lines, lines)) shortDictionary = newMemo(lines);
  return shortDictionary;
}
function sameLines(held, lines) {
  const n = lines.length;
  if (n !== held.length) return false;
  for (let i = 0; i < n; i++) if (held[i] !== lines[i]) return false;
  for (let i = 0; i < n; i++) held[i] = lines[i];
  return true;
}
function structuredOf(memo, type, name, what) {
  let parsed = memo.structured;
  if (parsed === void 0 || parsed.type !== type) {
    let value;
    let error;
    let text;
    try {
      text = combined(memo.lines);
      value = type === "dictionary" ? parseDictionary(text) : type === "list" ? parseList(text) : parseItem(text);
    } catch (err) {
      if (!isBotsigError(err)) throw err;
      error = err;
    }
    parsed = { type, value, error, lineError: text === void 0, serialized: void 0, key: void 0, member: "" };
    memo.structured = parsed;
  }
  if (parsed.value === void 0) {
    if (parsed.lineError) throw parsed.error;
    throw new BotsigError("ERR_COMPONENT_INVALID", `field ${name} is not a valid ${what}`, { cause: parsed.error });
  }
  return parsed;
}
function combined(lines) {
  let out = "";
  for (const line of lines) {
    const v = normalizeLine(line, false);
    if (v === "") continue;
    out = out === "" ? v : out + ", " + v;
  }
  return out;
}
var LONG_FIELD, longFields, shortDictionary;
var init_field_values = __esm({
  "../head/src/httpsig/field-values.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_sf_parse();
    init_sf_serialize();
    init_field_lines();
    init_structured_fields();
    LONG_FIELD = 1024;
    longFields = /* @__PURE__ */ new WeakMap();
    shortDictionary = newMemo([]);
  }
});

// ../head/src/httpsig/components.ts
function componentValues(message, id, options) {
  const v = componentValue(message, id, options);
  return typeof v === "string" ? [v] : v;
}
function componentValue(message, id, options) {
  const name = id.name;
  let req = false;
  let sf = false;
  let bs = false;
  let tr = false;
  let key;
  let qname;
  for (const [p, v] of id.params) {
    switch (p) {
      case "req":
      case "sf":
      case "bs":
      case "tr":
        if (v.type !== "boolean" || !v.value) throw new BotsigError("ERR_COMPONENT_INVALID", `component parameter ${p} must be a true flag`);
        if (p === "req") req = true;
        else if (p === "sf") sf = true;
        else if (p === "bs") bs = true;
        else tr = true;
        break;
      case "key":
      case "name":
        if (v.type !== "string") throw new BotsigError("ERR_COMPONENT_INVALID", `component parameter ${p} must be a String`);
        if (p === "key") key = v.value;
        else qname = v.value;
        break;
      default:
        throw new BotsigError("ERR_COMPONENT_UNSUPPORTED", "component identifier has an unknown parameter");
    }
  }
  let ctx = message;
  if (req) {
    if (message.kind === "request") throw new BotsigError("ERR_COMPONENT_INVALID", "`req` does not apply to a request (RFC 9421 \xA72.4)");
    if (message.request === void 0) throw new BotsigError("ERR_COMPONENT_MISSING", "a `req` component needs the related request");
    ctx = message.request;
  }
  if (name.charCodeAt(0) === 64) {
    if (sf || bs || tr || key !== void 0) {
      throw new BotsigError("ERR_COMPONENT_INVALID", "derived components take no sf, key, bs or tr parameter");
    }
    if (qname !== void 0 && name !== "@query-param") {
      throw new BotsigError("ERR_COMPONENT_INVALID", "only @query-param takes a name parameter");
    }
    return derivedValue(ctx, name, qname);
  }
  if (!isFieldName(name)) throw new BotsigError("ERR_COMPONENT_INVALID", "component name is not a lowercase field name");
  if (qname !== void 0) throw new BotsigError("ERR_COMPONENT_INVALID", "the name parameter applies to @query-param only");
  if (bs && (sf || key !== void 0)) {
    throw new BotsigError("ERR_COMPONENT_INVALID", "bs cannot be combined with sf or key (RFC 9421 \xA72.1)");
  }
  const fields = tr ? ctx.trailers : ctx.headers;
  const lines = fields?.get(name);
  if (lines === void 0 || lines.length === 0) {
    throw new BotsigError("ERR_COMPONENT_MISSING", `covered ${tr ? "trailer" : "header"} field ${name} is absent`);
  }
  return fieldComponentValue(name, lines, key, sf, bs, options);
}
var init_components = __esm({
  "../head/src/httpsig/components.ts"() {
    "use strict";
    init_errors();
    init_component_id();
    init_derived();
    init_field_values();
    init_component_id();
    init_structured_fields();
  }
});

// ../head/src/httpsig/fast-fields.ts
function keyEnd(s, i) {
  const c = s.charCodeAt(i);
  if (!(c >= 97 && c <= 122 || c === 42)) return -1;
  i++;
  while (KEY_CHAR[s.charCodeAt(i)] === 1) i++;
  return i;
}
function plainStringEnd(s, i) {
  PLAIN_RUN.lastIndex = i + 1;
  PLAIN_RUN.test(s);
  const e = PLAIN_RUN.lastIndex;
  return s.charCodeAt(e) === 34 ? e + 1 : -1;
}
function nextMember(s, i) {
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  if (i >= s.length) return i;
  if (s.charCodeAt(i) !== 44) return -1;
  i++;
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  return i < s.length ? i : -1;
}
function registeredParam(s, start, stop) {
  switch (stop - start) {
    case 7:
      if (s.startsWith("created", start)) return CREATED;
      if (s.startsWith("expires", start)) return EXPIRES;
      return 0;
    case 5:
      if (s.startsWith("keyid", start)) return KEYID;
      if (s.startsWith("nonce", start)) return NONCE;
      return 0;
    case 3:
      if (s.startsWith("tag", start)) return TAG;
      if (s.startsWith("alg", start)) return ALG;
      return 0;
    default:
      return 0;
  }
}
function readReceivedInputs(s) {
  return new InputReader(s).inputs();
}
function readReceivedSignatures(s) {
  const out = /* @__PURE__ */ new Map();
  const n = s.length;
  let i = 0;
  while (s.charCodeAt(i) === 32) i++;
  while (i < n) {
    const k = keyEnd(s, i);
    if (k < 0 || s.charCodeAt(k) !== 61 || s.charCodeAt(k + 1) !== 58) return void 0;
    const label = s.slice(i, k);
    if (out.has(label)) return void 0;
    const close = s.indexOf(":", k + 2);
    if (close < 0) return void 0;
    const bytes2 = base64DecodeRange(s, k + 2, close);
    if (bytes2 === void 0 || s.charCodeAt(close + 1) === 59) return void 0;
    out.set(label, bytes2);
    i = nextMember(s, close + 1);
    if (i < 0) return void 0;
  }
  return out;
}
var MAX_INTEGER_DIGITS, KEY_CHAR, PLAIN_RUN, NO_PARAMS, CREATED, EXPIRES, KEYID, NONCE, TAG, ALG, DirectInput, InputReader;
var init_fast_fields = __esm({
  "../head/src/httpsig/fast-fields.ts"() {
    "use strict";
    init_base64();
    init_sf_parse();
    MAX_INTEGER_DIGITS = 15;
    KEY_CHAR = new Uint8Array(128);
    for (const ch of "abcdefghijklmnopqrstuvwxyz0123456789_-.*") KEY_CHAR[ch.charCodeAt(0)] = 1;
    PLAIN_RUN = /[\x20\x21\x23-\x5b\x5d-\x7e]*/y;
    NO_PARAMS = /* @__PURE__ */ new Map();
    CREATED = 1;
    EXPIRES = 2;
    KEYID = 4;
    NONCE = 8;
    TAG = 16;
    ALG = 32;
    DirectInput = class {
      constructor(label, components, paramsText, idTexts, view) {
        this.label = label;
        this.components = components;
        this.paramsText = paramsText;
        this.idTexts = idTexts;
        this.view = view;
      }
      #params;
      get params() {
        if (this.#params === void 0) {
          const member = parseDictionary("m=" + this.paramsText).get("m");
          this.#params = member.params;
        }
        return this.#params;
      }
    };
    InputReader = class {
      constructor(s) {
        this.s = s;
      }
      end = 0;
      /** Signature-Input in the common canonical shape, each input with its received text; `undefined` otherwise. */
      inputs() {
        const s = this.s;
        const out = /* @__PURE__ */ new Map();
        const n = s.length;
        let i = 0;
        while (s.charCodeAt(i) === 32) i++;
        while (i < n) {
          const k = keyEnd(s, i);
          if (k < 0 || s.charCodeAt(k) !== 61 || s.charCodeAt(k + 1) !== 40) return void 0;
          const label = s.slice(i, k);
          if (out.has(label)) return void 0;
          const open = k + 1;
          let j = open + 1;
          const components = [];
          const idTexts = [];
          if (s.charCodeAt(j) !== 41) {
            for (; ; ) {
              if (s.charCodeAt(j) !== 34) return void 0;
              const e = plainStringEnd(s, j);
              if (e < 0) return void 0;
              const p = this.params(e);
              if (p === void 0) return void 0;
              components.push({ name: s.slice(j + 1, e - 1), params: p });
              idTexts.push(s.slice(j, this.end));
              j = this.end;
              const c = s.charCodeAt(j);
              if (c === 41) break;
              if (c !== 32) return void 0;
              j++;
            }
          }
          const view = this.signatureParams(j + 1);
          if (view === void 0) return void 0;
          out.set(label, new DirectInput(label, components, s.slice(open, this.end), idTexts, view));
          i = nextMember(s, this.end);
          if (i < 0) return void 0;
        }
        return out;
      }
      /** A canonical Integer starting at `j`; sets `end`. `undefined` when anything else is there. */
      integer(j) {
        const s = this.s;
        const neg = s.charCodeAt(j) === 45;
        if (neg) j++;
        const first = s.charCodeAt(j);
        let value;
        if (first === 48) {
          if (neg) return void 0;
          j++;
          value = 0;
        } else {
          if (!(first >= 49 && first <= 57)) return void 0;
          const start = j;
          let n = 0;
          for (; ; ) {
            const d = s.charCodeAt(j);
            if (!(d >= 48 && d <= 57)) break;
            n = n * 10 + (d - 48);
            j++;
          }
          if (j - start > MAX_INTEGER_DIGITS) return void 0;
          value = neg ? -n : n;
        }
        const after = s.charCodeAt(j);
        if (after === 46 || after >= 48 && after <= 57 || after >= 65 && after <= 90 || after >= 97 && after <= 122) return void 0;
        this.end = j;
        return value;
      }
      /**
       * Component identifier parameters starting at `i`: `;key=Integer` and `;key="String"`
       * only, each key once. Sets `end`; `undefined` when anything else is there.
       */
      params(i) {
        const s = this.s;
        if (s.charCodeAt(i) !== 59) {
          this.end = i;
          return NO_PARAMS;
        }
        const out = /* @__PURE__ */ new Map();
        while (s.charCodeAt(i) === 59) {
          const k = keyEnd(s, i + 1);
          if (k < 0 || s.charCodeAt(k) !== 61) return void 0;
          const key = s.slice(i + 1, k);
          if (out.has(key)) return void 0;
          const j = k + 1;
          let value;
          if (s.charCodeAt(j) === 34) {
            const e = plainStringEnd(s, j);
            if (e < 0) return void 0;
            value = { type: "string", value: s.slice(j + 1, e - 1) };
            this.end = e;
          } else {
            const n = this.integer(j);
            if (n === void 0) return void 0;
            value = { type: "integer", value: n };
          }
          out.set(key, value);
          i = this.end;
        }
        this.end = i;
        return out;
      }
      /**
       * Signature parameters starting at `i`, straight into their typed view: the registered
       * ones only, each once, Integers for `created`/`expires` and plain Strings for the
       * others. Sets `end`; `undefined` for anything else (another parameter, a wrong type),
       * which the general parser then reads and judges.
       */
      signatureParams(i) {
        const s = this.s;
        let seen = 0;
        let created;
        let expires;
        let keyid;
        let nonce;
        let tag;
        let alg;
        while (s.charCodeAt(i) === 59) {
          const k = keyEnd(s, i + 1);
          if (k < 0 || s.charCodeAt(k) !== 61) return void 0;
          const which = registeredParam(s, i + 1, k);
          if (which === 0 || (seen & which) !== 0) return void 0;
          seen |= which;
          const j = k + 1;
          if (which === CREATED || which === EXPIRES) {
            const n = this.integer(j);
            if (n === void 0) return void 0;
            if (which === CREATED) created = n;
            else expires = n;
          } else {
            if (s.charCodeAt(j) !== 34) return void 0;
            const e = plainStringEnd(s, j);
            if (e < 0) return void 0;
            const v = s.slice(j + 1, e - 1);
            if (which === KEYID) keyid = v;
            else if (which === NONCE) nonce = v;
            else if (which === TAG) tag = v;
            else alg = v;
            this.end = e;
          }
          i = this.end;
        }
        this.end = i;
        const view = {};
        if (created !== void 0) view.created = created;
        if (expires !== void 0) view.expires = expires;
        if (nonce !== void 0) view.nonce = nonce;
        if (alg !== void 0) view.alg = alg;
        if (keyid !== void 0) view.keyid = keyid;
        if (tag !== void 0) view.tag = tag;
        return view;
      }
    };
  }
});

// ../head/src/httpsig/signature-input.ts
function isValidLabel(label) {
  if (typeof label !== "string" || label.length === 0) return false;
  const c0 = label.charCodeAt(0);
  if (!(c0 >= 97 && c0 <= 122 || c0 === 42)) return false;
  for (let i = 1; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (!(c >= 97 && c <= 122 || c >= 48 && c <= 57 || c === 95 || c === 45 || c === 46 || c === 42)) return false;
  }
  return true;
}
function nextLabel(existing, prefix = "sig") {
  if (!isValidLabel(prefix)) throw new TypeError("label prefix must be a Structured Field key");
  const taken = existing instanceof Set ? existing : new Set(existing);
  for (let n = 1; ; n++) {
    const label = prefix + n;
    if (!taken.has(label)) return label;
  }
}
function parseSignatureDictionary(value, code, what) {
  if (typeof value !== "string") throw new TypeError(`${what} value must be a string`);
  try {
    return parseDictionary(value);
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError(code, `${what} is not a valid Dictionary`, { cause: err });
    throw err;
  }
}
function memberToSignatureInput(label, member, code) {
  if (member.kind !== "inner-list") throw new BotsigError(code, `member ${label} is not an Inner List`);
  const components = [];
  for (const it of member.items) {
    if (it.value.type !== "string") throw new BotsigError(code, `member ${label} has a component identifier that is not a String`);
    components.push({ name: it.value.value, params: it.params });
  }
  return { label, components, params: member.params };
}
function memberToSignature(label, member) {
  if (member instanceof Uint8Array) return member;
  if (member.kind !== "item" || member.value.type !== "binary") {
    throw new BotsigError("ERR_SIGNATURE_PARSE", `Signature member ${label} is not a Byte Sequence`);
  }
  return member.value.value;
}
function parseSignatureInput(value) {
  const dict = parseSignatureDictionary(value, "ERR_SIGNATURE_INPUT_PARSE", "Signature-Input");
  const out = /* @__PURE__ */ new Map();
  for (const [label, member] of dict) out.set(label, memberToSignatureInput(label, member, "ERR_SIGNATURE_INPUT_PARSE"));
  return out;
}
function parseSignature(value) {
  const dict = parseSignatureDictionary(value, "ERR_SIGNATURE_PARSE", "Signature");
  const out = /* @__PURE__ */ new Map();
  for (const [label, member] of dict) out.set(label, memberToSignature(label, member));
  return out;
}
function serializeSignatureParams(input) {
  const comps = input.components;
  const ids = new Array(comps.length);
  for (let i = 0; i < comps.length; i++) ids[i] = serializeComponentIdentifier(comps[i]);
  return signatureParamsValue(ids, input.params);
}
function signatureParamsValue(ids, params) {
  const out = "(" + ids.join(" ") + ")";
  if (params.size === 0) return out;
  try {
    return out + serializeParameters(params);
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError("ERR_PARAM_INVALID", "a signature parameter cannot be serialised", { cause: err });
    throw err;
  }
}
function serializeSignatureInputMember(input) {
  if (!isValidLabel(input.label)) throw new TypeError('signature label must be a Structured Field key (lowercase, e.g. "sig1")');
  return input.label + "=" + serializeSignatureParams(input);
}
function param(params, name, type) {
  const v = params.get(name);
  if (v === void 0) return void 0;
  if (v.type !== type) throw new BotsigError("ERR_PARAM_INVALID", `signature parameter ${name} must be ${type === "integer" ? "an Integer" : "a String"}`);
  return v.value;
}
function signatureParams(params) {
  const out = {};
  if (params.size === 0) return out;
  const created = param(params, "created", "integer");
  if (created !== void 0) out.created = created;
  const expires = param(params, "expires", "integer");
  if (expires !== void 0) out.expires = expires;
  const nonce = param(params, "nonce", "string");
  if (nonce !== void 0) out.nonce = nonce;
  const alg = param(params, "alg", "string");
  if (alg !== void 0) out.alg = alg;
  const keyid = param(params, "keyid", "string");
  if (keyid !== void 0) out.keyid = keyid;
  const tag = param(params, "tag", "string");
  if (tag !== void 0) out.tag = tag;
  return out;
}
function fieldValue(message, name) {
  const lines = message.headers.get(name);
  if (lines === void 0 || lines.length === 0) return void 0;
  return lines.length === 1 ? lines[0] : lines.join(", ");
}
function readSignatures(message) {
  return read(message, false);
}
function readSignaturesWithTexts(message) {
  return read(message, true);
}
function read(message, received) {
  const out = /* @__PURE__ */ new Map();
  const inputText = fieldValue(message, "signature-input");
  const sigText = fieldValue(message, "signature");
  if (inputText === void 0 && sigText === void 0) return out;
  const direct = received && inputText !== void 0 ? readReceivedInputs(inputText) : void 0;
  const inputs = inputText === void 0 || direct !== void 0 ? void 0 : parseSignatureDictionary(inputText, "ERR_SIGNATURE_INPUT_PARSE", "Signature-Input");
  const sigs = sigText === void 0 ? void 0 : (received ? readReceivedSignatures(sigText) : void 0) ?? parseSignatureDictionary(sigText, "ERR_SIGNATURE_PARSE", "Signature");
  const pair = (label, input) => {
    const sigMember = sigs?.get(label);
    if (sigMember === void 0) {
      out.set(label, { label, ok: false, input, error: new BotsigError("ERR_LABEL_MISSING", `label ${label} is in Signature-Input but not in Signature`) });
      return;
    }
    try {
      out.set(label, { label, ok: true, input, signature: memberToSignature(label, sigMember) });
    } catch (err) {
      out.set(label, { label, ok: false, input, error: asBotsigError(err) });
    }
  };
  if (direct !== void 0) {
    for (const [label, input] of direct) pair(label, input);
  } else if (inputs !== void 0) {
    for (const [label, member] of inputs) {
      let input;
      try {
        input = memberToSignatureInput(label, member, "ERR_SIGNATURE_INPUT_PARSE");
      } catch (err) {
        out.set(label, { label, ok: false, error: asBotsigError(err) });
        continue;
      }
      pair(label, input);
    }
  }
  if (sigs !== void 0) {
    for (const [label, member] of sigs) {
      if (direct?.has(label) || inputs?.has(label)) continue;
      const error = new BotsigError("ERR_LABEL_MISSING", `label ${label} is in Signature but not in Signature-Input`);
      let signature;
      try {
        signature = memberToSignature(label, member);
      } catch {
        signature = void 0;
      }
      out.set(label, signature === void 0 ? { label, ok: false, error } : { label, ok: false, error, signature });
    }
  }
  return out;
}
function asBotsigError(err) {
  if (err instanceof BotsigError) return err;
  throw err;
}
var init_signature_input = __esm({
  "../head/src/httpsig/signature-input.ts"() {
    "use strict";
    init_errors();
    init_sf_parse();
    init_sf_serialize();
    init_component_id();
    init_fast_fields();
  }
});

// ../head/src/httpsig/base.ts
function createSignatureBase(message, input, options) {
  return signatureBase(message, input.components, input.params, void 0, void 0, options);
}
function createReceivedSignatureBase(message, input, options) {
  const { paramsText, idTexts } = input;
  if (paramsText !== void 0 && idTexts !== void 0) return signatureBase(message, input.components, NO_PARAMS2, idTexts, paramsText, options);
  return signatureBase(message, input.components, input.params, void 0, void 0, options);
}
function signatureBaseFromTexts(message, components, idTexts, paramsText, options) {
  return signatureBase(message, components, NO_PARAMS2, idTexts, paramsText, options);
}
function createSignatureBaseParts(message, input, options) {
  const base = signatureBase(message, input.components, input.params, void 0, void 0, options);
  return { base, signatureParams: base.slice(base.lastIndexOf("\n") + 1 + SIGNATURE_PARAMS_LINE.length) };
}
function signatureBase(message, comps, params, idTexts, paramsText, options) {
  const n = comps.length;
  const ids = idTexts ?? new Array(n);
  const keys = n > 1 ? new Array(n) : void 0;
  let seen;
  let out = "";
  for (let i = 0; i < n; i++) {
    const id = comps[i];
    let idText;
    if (idTexts !== void 0) idText = idTexts[i];
    else ids[i] = idText = serializeComponentIdentifier(id);
    if (keys !== void 0) {
      const k = identityKey(id, idText);
      if (n <= LINEAR_DUPLICATE_SCAN) {
        for (let j = 0; j < i; j++) if (keys[j] === k) throw duplicate();
      } else {
        seen ??= /* @__PURE__ */ new Set();
        if (seen.has(k)) throw duplicate();
        seen.add(k);
      }
      keys[i] = k;
    }
    const v = componentValue(message, id, options);
    if (typeof v === "string") {
      out += idText + ": " + v + "\n";
    } else {
      for (const line of v) out += idText + ": " + line + "\n";
    }
  }
  return out + SIGNATURE_PARAMS_LINE + (paramsText ?? signatureParamsValue(ids, params));
}
function duplicate() {
  return new BotsigError("ERR_COMPONENT_DUPLICATE", "a component identifier is covered twice (RFC 9421 \xA72.5)");
}
function identityKey(id, idText) {
  if (id.params.size < 2) return idText;
  const parts = [];
  for (const [k, v] of id.params) parts.push(k + "=" + serializeBareItem(v));
  parts.sort();
  return serializeBareItem({ type: "string", value: id.name }) + ";" + parts.join(";");
}
var LINEAR_DUPLICATE_SCAN, SIGNATURE_PARAMS_LINE, NO_PARAMS2;
var init_base2 = __esm({
  "../head/src/httpsig/base.ts"() {
    "use strict";
    init_errors();
    init_sf_serialize();
    init_component_id();
    init_components();
    init_signature_input();
    LINEAR_DUPLICATE_SCAN = 16;
    SIGNATURE_PARAMS_LINE = '"@signature-params": ';
    NO_PARAMS2 = /* @__PURE__ */ new Map();
  }
});

// ../head/src/httpsig/header-map.ts
function addLine(map, name, value, what) {
  if (value === void 0 || value === null) return;
  const key = name.toLowerCase();
  if (typeof value === "string" || typeof value === "number") {
    const text = typeof value === "string" ? value : String(value);
    const list2 = map.get(key);
    if (list2 === void 0) map.set(key, [text]);
    else list2.push(text);
    return;
  }
  if (!Array.isArray(value)) throw badValue(what);
  let list = map.get(key);
  for (const line of value) {
    const text = typeof line === "string" ? line : typeof line === "number" ? String(line) : void 0;
    if (text === void 0) throw badValue(what);
    if (list === void 0) {
      list = [text];
      map.set(key, list);
    } else {
      list.push(text);
    }
  }
}
function badValue(what) {
  return new TypeError(`${what} values must be strings or arrays of strings`);
}
function checkFieldValue(value, what) {
  if (typeof value === "string" || typeof value === "number" || value === void 0 || value === null) return;
  if (!Array.isArray(value)) throw badValue(what);
  for (const line of value) if (typeof line !== "string" && typeof line !== "number") throw badValue(what);
}
function addFields(map, source, what) {
  if (typeof source !== "object") throw new TypeError(`${what} must be a Headers, a record or pairs`);
  const iter = source[Symbol.iterator];
  if (typeof iter === "function") {
    for (const pair of source) {
      if (!Array.isArray(pair) || pair.length < 2 || typeof pair[0] !== "string") throw new TypeError(`${what} pairs must be [name, value]`);
      addLine(map, pair[0], pair[1], what);
    }
    return;
  }
  const record = source;
  for (const name of Object.keys(record)) addLine(map, name, record[name], what);
}
function lowercaseRecord(record) {
  const keys = Object.keys(record);
  const n = keys.length;
  let same = n === lastKeys.length;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (same && k !== lastKeys[i]) same = false;
    checkFieldValue(record[k], "headers");
  }
  if (same) return lastLowercase;
  let lowercase = true;
  for (let i = 0; i < n && lowercase; i++) if (UPPERCASE.test(keys[i])) lowercase = false;
  lastKeys = keys;
  lastLowercase = lowercase;
  return lowercase;
}
function recordLines(record, name) {
  if (!Object.hasOwn(record, name)) return void 0;
  const v = record[name];
  if (typeof v === "string") return [v];
  if (typeof v === "number") return [String(v)];
  if (!Array.isArray(v) || v.length === 0) return void 0;
  return v.map((line) => typeof line === "string" ? line : String(line));
}
function headerLines(headers, name) {
  if (UPPERCASE.test(name)) return void 0;
  if (name === "set-cookie") {
    const cookies = headers.getSetCookie();
    return cookies.length === 0 ? void 0 : cookies;
  }
  let v;
  try {
    v = headers.get(name);
  } catch {
    return void 0;
  }
  return v === null ? void 0 : [v];
}
var UPPERCASE, lastKeys, lastLowercase, LazyFields;
var init_header_map = __esm({
  "../head/src/httpsig/header-map.ts"() {
    "use strict";
    UPPERCASE = /[A-Z]/;
    lastKeys = [];
    lastLowercase = false;
    LazyFields = class _LazyFields extends Map {
      #source;
      #isHeaders;
      #sets;
      constructor(source, isHeaders) {
        super();
        this.#source = source;
        this.#isHeaders = isHeaders;
      }
      static {
        Object.defineProperty(_LazyFields.prototype, "size", {
          configurable: true,
          get() {
            this.#fill();
            return Reflect.get(Map.prototype, "size", this);
          }
        });
      }
      /** A lazy map over `source`, or `undefined` when it has another shape (the caller copies). */
      static over(source) {
        if (typeof source !== "object" || source === null) return void 0;
        if (typeof Headers === "function" && source instanceof Headers) {
          return typeof source.getSetCookie === "function" ? new _LazyFields(source, true) : void 0;
        }
        if (Symbol.iterator in source) return void 0;
        return lowercaseRecord(source) ? new _LazyFields(source, false) : void 0;
      }
      get(name) {
        const have = super.get(name);
        const src = this.#source;
        if (have !== void 0 || src === void 0) return have;
        const lines = this.#isHeaders ? headerLines(src, name) : recordLines(src, name);
        if (lines !== void 0) super.set(name, lines);
        return lines;
      }
      has(name) {
        return this.get(name) !== void 0;
      }
      set(name, lines) {
        if (this.#source !== void 0) (this.#sets ??= /* @__PURE__ */ new Map()).set(name, lines);
        return super.set(name, lines);
      }
      delete(name) {
        this.#fill();
        return super.delete(name);
      }
      clear() {
        this.#fill();
        super.clear();
      }
      forEach(callback, thisArg) {
        this.#fill();
        super.forEach(callback, thisArg);
      }
      keys() {
        this.#fill();
        return super.keys();
      }
      values() {
        this.#fill();
        return super.values();
      }
      entries() {
        this.#fill();
        return super.entries();
      }
      [Symbol.iterator]() {
        return this.entries();
      }
      /** Copies every field, then re-applies the `set`s: from here on a plain Map. */
      #fill() {
        const src = this.#source;
        if (src === void 0) return;
        this.#source = void 0;
        super.clear();
        addFields(this, src, "headers");
        const sets = this.#sets;
        this.#sets = void 0;
        if (sets !== void 0) for (const [name, lines] of sets) super.set(name, lines);
      }
    };
  }
});

// ../head/src/httpsig/message.ts
function isHttpMessage(value) {
  if (typeof value !== "object" || value === null) return false;
  const kind = value.kind;
  return (kind === "request" || kind === "response") && value.headers instanceof Map;
}
function toHttpMessage(input, options) {
  return convert(input, options, false);
}
function toReceivedMessage(input) {
  return convert(input, void 0, true);
}
function convert(input, options, lazy) {
  if (typeof input !== "object" || input === null) throw new TypeError("message must be a Request, Response or message object");
  let message;
  if (isHttpMessage(input)) {
    message = input;
  } else {
    const src = input;
    const status = src.status;
    if (status !== void 0 && typeof status !== "number") throw new TypeError("message status must be a number");
    const source = src.headers;
    let headers;
    if (lazy && source !== void 0 && source !== null) headers = LazyFields.over(source);
    if (headers === void 0) {
      headers = /* @__PURE__ */ new Map();
      if (source !== void 0 && source !== null) addFields(headers, source, "headers");
    }
    if (status !== void 0) {
      message = { kind: "response", status, headers };
    } else {
      const method = src.method;
      if (method !== void 0 && typeof method !== "string") throw new TypeError("message method must be a string");
      message = { kind: "request", method: method ?? "GET", headers };
    }
    const url = src.url;
    if (url !== void 0 && typeof url !== "string") throw new TypeError("message url must be a string");
    if (url !== void 0 && url !== "") message.url = url;
    const target = src.target;
    if (target !== void 0 && typeof target !== "string") throw new TypeError("message target must be a string");
    if (target !== void 0 && message.kind === "request") message.target = target;
    if (src.trailers !== void 0 && src.trailers !== null) {
      const trailers = /* @__PURE__ */ new Map();
      addFields(trailers, src.trailers, "trailers");
      message.trailers = trailers;
    }
  }
  const req = options?.request;
  if (req !== void 0 && message.kind === "response") {
    const request = toHttpMessage(req);
    if (request.kind !== "request") throw new TypeError("options.request must be a request");
    message = message === input ? { ...message, request } : Object.assign(message, { request });
  }
  return message;
}
var init_message = __esm({
  "../head/src/httpsig/message.ts"() {
    "use strict";
    init_header_map();
    init_target_uri();
  }
});

// ../head/src/profile/signature-agent/types.ts
var WELL_KNOWN_PATH, DIRECTORY_MEDIA_TYPE, SIGNATURE_AGENT_TYPES;
var init_types = __esm({
  "../head/src/profile/signature-agent/types.ts"() {
    "use strict";
    WELL_KNOWN_PATH = "/.well-known/http-message-signatures-directory";
    DIRECTORY_MEDIA_TYPE = "application/http-message-signatures-directory+json";
    SIGNATURE_AGENT_TYPES = ["directory", "jwks_uri", "cimd"];
  }
});

// ../head/src/core/url.ts
function isHex(c) {
  return c >= 48 && c <= 57 || c >= 65 && c <= 70 || c >= 97 && c <= 102;
}
function isAlpha(c) {
  return c >= 65 && c <= 90 || c >= 97 && c <= 122;
}
function isDigit(c) {
  return c >= 48 && c <= 57;
}
function isPchar(c) {
  if (c >= 128) return false;
  const k = CLASS[c];
  return k === UNRESERVED || k === SUB_DELIM || c === 58 || c === 64;
}
function scan(text, start, end, allowed) {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 37) {
      if (i + 2 >= end) return false;
      if (!isHex(text.charCodeAt(i + 1)) || !isHex(text.charCodeAt(i + 2))) return false;
      i += 2;
      continue;
    }
    if (!allowed(c)) return false;
  }
  return true;
}
function isRegNameChar(c) {
  if (c >= 128) return false;
  const k = CLASS[c];
  return k === UNRESERVED || k === SUB_DELIM;
}
function isUserinfoChar(c) {
  return isRegNameChar(c) || c === 58;
}
function isQueryChar(c) {
  return isPchar(c) || c === 47 || c === 63;
}
function isPathChar(c) {
  return isPchar(c) || c === 47;
}
function isIpLiteralChar(c) {
  return isHex(c) || c === 58 || c === 46 || c === 118 || c === 86 || isRegNameChar(c);
}
function isAuthority(text, start, end) {
  let hostStart = start;
  const at = text.lastIndexOf("@", end - 1);
  if (at >= start) {
    if (!scan(text, start, at, isUserinfoChar)) return false;
    hostStart = at + 1;
  }
  let portStart = -1;
  if (text.charCodeAt(hostStart) === 91) {
    const close = text.indexOf("]", hostStart);
    if (close < 0 || close >= end) return false;
    for (let i = hostStart + 1; i < close; i++) if (!isIpLiteralChar(text.charCodeAt(i))) return false;
    if (close + 1 < end) {
      if (text.charCodeAt(close + 1) !== 58) return false;
      portStart = close + 2;
    }
  } else {
    const colon = text.indexOf(":", hostStart);
    const hostEnd = colon >= 0 && colon < end ? colon : end;
    if (!scan(text, hostStart, hostEnd, isRegNameChar)) return false;
    if (hostEnd < end) portStart = hostEnd + 1;
  }
  if (portStart >= 0) {
    for (let i = portStart; i < end; i++) if (!isDigit(text.charCodeAt(i))) return false;
  }
  return true;
}
function isUriReference(text) {
  if (typeof text !== "string") throw new TypeError("isUriReference expects a string");
  const n = text.length;
  let hash = text.indexOf("#");
  if (hash < 0) hash = n;
  else if (!scan(text, hash + 1, n, isQueryChar)) return false;
  let query = text.indexOf("?");
  if (query < 0 || query > hash) query = hash;
  else if (!scan(text, query + 1, hash, isQueryChar)) return false;
  let i = 0;
  let firstDelim = query;
  const slash = text.indexOf("/");
  if (slash >= 0 && slash < firstDelim) firstDelim = slash;
  const colon = text.indexOf(":");
  if (colon >= 0 && colon < firstDelim) {
    if (colon === 0 || !isAlpha(text.charCodeAt(0))) return false;
    for (let j = 1; j < colon; j++) {
      const c = text.charCodeAt(j);
      if (!isAlpha(c) && !isDigit(c) && c !== 43 && c !== 45 && c !== 46) return false;
    }
    i = colon + 1;
  }
  if (text.charCodeAt(i) === 47 && text.charCodeAt(i + 1) === 47 && i + 1 < query) {
    const authStart = i + 2;
    let authEnd = text.indexOf("/", authStart);
    if (authEnd < 0 || authEnd > query) authEnd = query;
    if (!isAuthority(text, authStart, authEnd)) return false;
    i = authEnd;
  }
  return scan(text, i, query, isPathChar);
}
function tryParseUrl(text) {
  if (typeof text !== "string") return void 0;
  let url;
  try {
    url = new URL(text);
  } catch {
    return void 0;
  }
  if ((url.protocol === "https:" || url.protocol === "http:") && url.hostname.includes("%")) return void 0;
  return url;
}
function hexDigit(c) {
  return c <= 57 ? c - 48 : (c | 32) - 87;
}
function normalizePercentEncoding(text) {
  if (text.indexOf("%") < 0) return text;
  let out = "";
  let from = 0;
  const n = text.length;
  for (let i = 0; i + 2 < n; i++) {
    if (text.charCodeAt(i) !== 37) continue;
    const h = text.charCodeAt(i + 1);
    const l = text.charCodeAt(i + 2);
    if (!isHex(h) || !isHex(l)) continue;
    const byte = hexDigit(h) << 4 | hexDigit(l);
    out += text.slice(from, i);
    out += byte < 128 && CLASS[byte] === UNRESERVED ? String.fromCharCode(byte) : "%" + HEX_UPPER[byte >> 4] + HEX_UPPER[byte & 15];
    from = i + 3;
    i += 2;
  }
  return out + text.slice(from);
}
function normalizeUrl(url) {
  if (typeof url !== "string") throw new TypeError("normalizeUrl expects a string");
  const parsed = tryParseUrl(url);
  if (parsed === void 0) throw new BotsigError("ERR_URL_INVALID", "not an absolute URL");
  return normalizePercentEncoding(parsed.href);
}
function stripUrlSuffix(url, dropQuery) {
  const parsed = tryParseUrl(url);
  if (parsed === void 0) throw new BotsigError("ERR_URL_INVALID", "not an absolute URL");
  parsed.hash = "";
  if (dropQuery) parsed.search = "";
  return parsed.href;
}
var UNRESERVED, SUB_DELIM, GEN_DELIM, CLASS, HEX_UPPER;
var init_url = __esm({
  "../head/src/core/url.ts"() {
    "use strict";
    init_errors();
    UNRESERVED = 1;
    SUB_DELIM = 2;
    GEN_DELIM = 4;
    CLASS = new Uint8Array(128);
    for (let c = 48; c <= 57; c++) CLASS[c] = UNRESERVED;
    for (let c = 65; c <= 90; c++) CLASS[c] = UNRESERVED;
    for (let c = 97; c <= 122; c++) CLASS[c] = UNRESERVED;
    for (const ch of "-._~") CLASS[ch.charCodeAt(0)] = UNRESERVED;
    for (const ch of "!$&'()*+,;=") CLASS[ch.charCodeAt(0)] = SUB_DELIM;
    for (const ch of ":/?#[]@") CLASS[ch.charCodeAt(0)] = GEN_DELIM;
    HEX_UPPER = "0123456789ABCDEF";
  }
});

// ../head/src/core/data-url.ts
function isToken2(text) {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TCHAR[c] !== 1) return false;
  }
  return true;
}
function hexValue3(c) {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}
function percentDecode2(text, start, end) {
  const out = new Uint8Array(end - start);
  let o = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 37) {
      if (i + 2 >= end) return void 0;
      const h = hexValue3(text.charCodeAt(i + 1));
      const l = hexValue3(text.charCodeAt(i + 2));
      if (h < 0 || l < 0) return void 0;
      out[o++] = h << 4 | l;
      i += 2;
    } else if (c > 32 && c < 127) {
      out[o++] = c;
    } else {
      return void 0;
    }
  }
  return out.subarray(0, o);
}
function latin1(bytes2) {
  let out = "";
  for (let i = 0; i < bytes2.length; i += LATIN1_CHUNK) {
    out += String.fromCharCode.apply(null, bytes2.subarray(i, i + LATIN1_CHUNK));
  }
  return out;
}
function fail(reason) {
  throw new BotsigError("ERR_URL_INVALID", `invalid data: URL (${reason})`);
}
function parseDataUrl(text, options) {
  if (typeof text !== "string") throw new TypeError("parseDataUrl expects a string");
  const maxBytes = options?.maxBytes;
  if (maxBytes !== void 0 && (!Number.isSafeInteger(maxBytes) || maxBytes < 0)) {
    throw new TypeError("maxBytes must be a non-negative integer");
  }
  if (text.length < 5 || text.slice(0, 5).toLowerCase() !== "data:") fail("scheme");
  let end = text.indexOf("#");
  if (end < 0) end = text.length;
  const comma = text.indexOf(",");
  if (comma < 0 || comma > end) fail("no comma");
  const segments = text.slice(5, comma).split(";");
  let base64 = false;
  if (segments.length > 1 && segments[segments.length - 1].toLowerCase() === "base64") {
    base64 = true;
    segments.pop();
  }
  const typeText = segments[0].toLowerCase();
  let mediaType = "text/plain";
  if (typeText !== "") {
    const slash = typeText.indexOf("/");
    if (slash < 0 || !isToken2(typeText.slice(0, slash)) || !isToken2(typeText.slice(slash + 1))) fail("media type");
    mediaType = typeText;
  }
  const parameters = /* @__PURE__ */ new Map();
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i];
    const eq = segment.indexOf("=");
    if (eq <= 0) fail("parameter");
    const name = segment.slice(0, eq).toLowerCase();
    if (!isToken2(name)) fail("parameter name");
    const raw = percentDecode2(segment, eq + 1, segment.length);
    if (raw === void 0) fail("parameter value");
    const value = latin1(raw);
    if (!parameters.has(name)) parameters.set(name, value);
  }
  if (typeText === "" && !parameters.has("charset")) parameters.set("charset", "US-ASCII");
  const data = percentDecode2(text, comma + 1, end);
  if (data === void 0) fail("data");
  let body = data;
  if (base64) {
    const decoded2 = base64AnyDecode(latin1(data));
    if (decoded2 === void 0) fail("base64");
    body = decoded2;
  }
  if (maxBytes !== void 0 && body.length > maxBytes) fail("too large");
  return { mediaType, parameters, base64, body };
}
var TCHAR, LATIN1_CHUNK;
var init_data_url = __esm({
  "../head/src/core/data-url.ts"() {
    "use strict";
    init_base64();
    init_errors();
    TCHAR = new Uint8Array(128);
    for (let c = 48; c <= 57; c++) TCHAR[c] = 1;
    for (let c = 65; c <= 90; c++) TCHAR[c] = 1;
    for (let c = 97; c <= 122; c++) TCHAR[c] = 1;
    for (const ch of "!#$%&'*+-.^_`|~") TCHAR[ch.charCodeAt(0)] = 1;
    LATIN1_CHUNK = 8192;
  }
});

// ../head/src/profile/signature-agent/member.ts
function isAsciiCaseInsensitivePrefix(text, prefix) {
  return text.length >= prefix.length && text.slice(0, prefix.length).toLowerCase() === prefix;
}
function checkMember(url, type, allowHttp) {
  const colon = url.indexOf(":");
  if (colon <= 0) return { ok: false, code: "uri-not-absolute", message: "value is a relative reference, not an absolute URI" };
  const scheme = url.slice(0, colon).toLowerCase();
  if (scheme === "data") {
    if (type !== "directory") {
      return { ok: false, code: "data-requires-directory", message: `a data: value is allowed only with type=directory, not ${type}` };
    }
    let decoded2;
    try {
      decoded2 = parseDataUrl(url);
    } catch {
      return { ok: false, code: "data-invalid", message: "data: value is not a well-formed data URL (RFC 2397)" };
    }
    if (decoded2.mediaType !== DIRECTORY_MEDIA_TYPE) {
      return { ok: false, code: "data-media-type", message: `a data: value must have media type ${DIRECTORY_MEDIA_TYPE}` };
    }
    return { ok: true, scheme: "data", inline: { mediaType: decoded2.mediaType, body: decoded2.body } };
  }
  if (scheme !== "https" && scheme !== "http") {
    return { ok: false, code: "scheme-unsupported", message: "scheme must be https, http or data" };
  }
  if (scheme === "http" && !allowHttp) {
    return { ok: false, code: "http-not-allowed", message: "http: values are accepted only when allowHttp is set" };
  }
  if (url.charCodeAt(colon + 1) !== 47 || url.charCodeAt(colon + 2) !== 47) {
    return { ok: false, code: "uri-no-authority", message: "value has no authority (expected scheme://host)" };
  }
  const authStart = colon + 3;
  let authEnd = url.length;
  for (let i = authStart; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 || c === 63 || c === 35) {
      authEnd = i;
      break;
    }
  }
  if (url.lastIndexOf("@", authEnd - 1) >= authStart) {
    return { ok: false, code: "uri-userinfo", message: "value carries userinfo, which is not allowed" };
  }
  if (tryParseUrl(url) === void 0 || authEnd === authStart) {
    return { ok: false, code: "uri-unparseable", message: "value is not a usable URL" };
  }
  if (type === "directory") {
    const rest = url.length - authEnd;
    if (!(rest === 0 || rest === 1 && url.charCodeAt(authEnd) === 47)) {
      return {
        ok: false,
        code: "not-an-origin",
        message: "a type=directory value must be an origin (scheme://host[:port]) without path, query or fragment"
      };
    }
  }
  return { ok: true, scheme };
}
function isSfKey(key) {
  if (key.length === 0) return false;
  const c0 = key.charCodeAt(0);
  if (!(c0 >= 97 && c0 <= 122 || c0 === 42)) return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (!(c >= 97 && c <= 122 || c >= 48 && c <= 57 || c === 95 || c === 45 || c === 46 || c === 42)) return false;
  }
  return true;
}
var init_member = __esm({
  "../head/src/profile/signature-agent/member.ts"() {
    "use strict";
    init_data_url();
    init_url();
    init_types();
  }
});

// ../head/src/profile/signature-agent/parse.ts
function where(key, index) {
  return key ?? `[${index}]`;
}
function toLines(value) {
  if (value === null || value === void 0) return [];
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) throw new TypeError("parseSignatureAgent expects a string, an array of strings, null or undefined");
  for (const line of value) {
    if (typeof line !== "string") throw new TypeError("parseSignatureAgent expects an array of strings");
  }
  return value;
}
function rawAngle(line) {
  if (line.length < 2 || line.charCodeAt(0) !== 60 || line.charCodeAt(line.length - 1) !== 62) return void 0;
  const inner = line.slice(1, -1);
  if (inner.includes("<") || inner.includes(">")) return void 0;
  return inner;
}
function pushMemberCandidate(out, diagnostics, key, member, index) {
  if (member.kind !== "item" || member.value.type !== "string") {
    diagnostics.push({
      level: "error",
      code: "member-not-string",
      message: "Signature-Agent member is not a String Item; member ignored",
      at: where(key, index)
    });
    return;
  }
  let url = member.value.value;
  if (url.length >= 2 && url.charCodeAt(0) === 60 && url.charCodeAt(url.length - 1) === 62) {
    url = url.slice(1, -1);
    diagnostics.push({
      level: "warning",
      code: "angle-brackets",
      message: "Signature-Agent value is wrapped in <\u2026>; brackets removed",
      at: where(key, index)
    });
  }
  out.push({ key, url, params: member.params, index });
}
function resolveType(params) {
  const t = (params ?? EMPTY_PARAMS).get("type");
  if (t === void 0) return "directory";
  if (t.type !== "token") return { code: "type-invalid", message: "type parameter is not a Token; member ignored" };
  if (t.value === "directory" || t.value === "jwks_uri" || t.value === "cimd") return t.value;
  return { code: "type-unsupported", message: "unsupported type parameter; member ignored (SPEC 2.3)" };
}
function parseSignatureAgent(value, options) {
  const lines = toLines(value);
  const allowHttp = options?.allowHttp === true;
  const diagnostics = [];
  const trimmed = [];
  for (const line of lines) {
    const t = line.trim();
    if (t !== "") trimmed.push(t);
  }
  if (trimmed.length === 0) return { form: "absent", members: [], diagnostics, ignored: false };
  const text = trimmed.length === 1 ? trimmed[0] : trimmed.join(", ");
  const candidates = [];
  let form;
  let dict;
  try {
    dict = parseDictionary(text);
  } catch {
    dict = void 0;
  }
  if (dict !== void 0) {
    form = "dictionary";
    let index = 0;
    for (const [key, member] of dict) pushMemberCandidate(candidates, diagnostics, key, member, index++);
  } else {
    let list;
    try {
      list = parseList(text);
    } catch {
      list = void 0;
    }
    if (list !== void 0) {
      form = "string";
      for (let i = 0; i < list.length; i++) pushMemberCandidate(candidates, diagnostics, void 0, list[i], i);
    } else {
      const raw = [];
      for (const line of trimmed) {
        const inner = rawAngle(line);
        if (inner === void 0) {
          diagnostics.push({
            level: "error",
            code: "sf-parse",
            message: "Signature-Agent is neither a Dictionary nor a String (RFC 9651); header ignored"
          });
          return { form: "absent", members: [], diagnostics, ignored: true };
        }
        raw.push(inner);
      }
      form = "string";
      diagnostics.push({
        level: "warning",
        code: "raw-angle-brackets",
        message: "Signature-Agent is an unquoted <\u2026> value, not a Structured Field; accepted as a String"
      });
      for (let i = 0; i < raw.length; i++) candidates.push({ key: void 0, url: raw[i], params: void 0, index: i });
    }
    if (candidates.length > 0) {
      diagnostics.push({
        level: "warning",
        code: "legacy-string-form",
        message: "Signature-Agent uses the first revision's String form; the current form is a Dictionary"
      });
    }
  }
  let invalid5 = false;
  for (const c of candidates) {
    if (!isUriReference(c.url)) {
      invalid5 = true;
      diagnostics.push({
        level: "error",
        code: "uri-invalid",
        message: "Signature-Agent value is not a URI-reference (RFC 3986); header ignored",
        at: where(c.key, c.index)
      });
    }
  }
  if (invalid5) return { form, members: [], diagnostics, ignored: true };
  const members = [];
  for (const c of candidates) {
    const type = resolveType(c.params);
    if (typeof type !== "string") {
      diagnostics.push({ level: "warning", code: type.code, message: type.message, at: where(c.key, c.index) });
      continue;
    }
    const check2 = checkMember(c.url, type, allowHttp);
    if (!check2.ok) {
      diagnostics.push({ level: "error", code: check2.code, message: `${check2.message}; member ignored`, at: where(c.key, c.index) });
      continue;
    }
    const member = {
      ...c.key === void 0 ? {} : { key: c.key },
      url: c.url,
      type,
      scheme: check2.scheme,
      ...check2.inline === void 0 ? {} : { inline: check2.inline },
      index: c.index
    };
    members.push(member);
  }
  return { form, members, diagnostics, ignored: false };
}
var EMPTY_PARAMS;
var init_parse = __esm({
  "../head/src/profile/signature-agent/parse.ts"() {
    "use strict";
    init_sf();
    init_url();
    init_member();
    EMPTY_PARAMS = /* @__PURE__ */ new Map();
  }
});

// ../head/src/profile/signature-agent/serialize.ts
function serializeSignatureAgent(members) {
  if (typeof members !== "object" || members === null) throw new TypeError("serializeSignatureAgent expects an array or a record");
  const entries = [];
  if (Array.isArray(members)) {
    for (const m of members) {
      if (typeof m !== "object" || m === null) throw new TypeError("each Signature-Agent member must be an object");
      const { key, url, type } = m;
      entries.push({ key: checkKey(key), url: checkUrl(url), type: checkType(type) });
    }
  } else {
    for (const key of Object.keys(members)) {
      const v = members[key];
      if (typeof v === "string") entries.push({ key: checkKey(key), url: v, type: "directory" });
      else if (typeof v === "object" && v !== null) {
        const { url, type } = v;
        entries.push({ key: checkKey(key), url: checkUrl(url), type: checkType(type) });
      } else throw new TypeError("each Signature-Agent member must be a URL string or { url, type }");
    }
  }
  const dict = /* @__PURE__ */ new Map();
  for (const e of entries) {
    if (dict.has(e.key)) throw new TypeError(`Signature-Agent member key "${e.key}" is repeated`);
    if (!isUriReference(e.url)) {
      throw new BotsigError("ERR_SIGNATURE_AGENT_INVALID", `Signature-Agent member "${e.key}" is not a URI-reference (SPEC 2.3)`);
    }
    const check2 = checkMember(e.url, e.type, true);
    if (!check2.ok) throw new BotsigError("ERR_SIGNATURE_AGENT_INVALID", `Signature-Agent member "${e.key}": ${check2.message}`);
    const params = /* @__PURE__ */ new Map();
    if (e.type !== "directory") params.set("type", sfToken(e.type));
    dict.set(e.key, item(sfString(e.url), params));
  }
  return serializeDictionary(dict);
}
function checkKey(key) {
  if (typeof key !== "string" || !isSfKey(key)) {
    throw new TypeError("a Signature-Agent member key must be a Structured Field key (lowercase letter or *, then a-z 0-9 _ - . *)");
  }
  return key;
}
function checkUrl(url) {
  if (typeof url !== "string") throw new TypeError("a Signature-Agent member url must be a string");
  return url;
}
function checkType(type) {
  if (type === void 0) return "directory";
  if (type === "directory" || type === "jwks_uri" || type === "cimd") return type;
  throw new TypeError("a Signature-Agent member type must be directory, jwks_uri or cimd");
}
function signatureAgentComponent(key) {
  return `"signature-agent";key="${checkKey(key)}"`;
}
var init_serialize = __esm({
  "../head/src/profile/signature-agent/serialize.ts"() {
    "use strict";
    init_errors();
    init_sf();
    init_url();
    init_member();
  }
});

// ../head/src/profile/signature-agent/identity.ts
function checkMemberArg(member) {
  if (typeof member !== "object" || member === null || typeof member.url !== "string") {
    throw new TypeError("expected a SignatureAgentMember");
  }
  if (member.type !== "directory" && member.type !== "jwks_uri" && member.type !== "cimd") {
    throw new TypeError("SignatureAgentMember.type must be directory, jwks_uri or cimd");
  }
}
function directoryUrlFor(member) {
  checkMemberArg(member);
  if (isAsciiCaseInsensitivePrefix(member.url, "data:")) return void 0;
  if (member.type === "directory") {
    const parsed = tryParseUrl(member.url);
    if (parsed === void 0 || parsed.protocol !== "https:" && parsed.protocol !== "http:") {
      throw new BotsigError("ERR_URL_INVALID", "Signature-Agent value is not an http(s) origin");
    }
    return parsed.origin + WELL_KNOWN_PATH;
  }
  return stripUrlSuffix(member.url, false);
}
function agentIdentifier(member) {
  checkMemberArg(member);
  if (member.type === "directory") {
    const url = directoryUrlFor(member);
    return url === void 0 ? void 0 : normalizeUrl(url);
  }
  return normalizeUrl(stripUrlSuffix(member.url, false));
}
var init_identity = __esm({
  "../head/src/profile/signature-agent/identity.ts"() {
    "use strict";
    init_errors();
    init_url();
    init_member();
    init_types();
  }
});

// ../head/src/profile/signature-agent.ts
var init_signature_agent = __esm({
  "../head/src/profile/signature-agent.ts"() {
    "use strict";
    init_types();
    init_parse();
    init_serialize();
    init_identity();
  }
});

// ../head/src/crypto/digest.ts
function isDigestAlgorithm(name) {
  return name === "sha-256" || name === "sha-512";
}
function toBytes(body) {
  if (typeof body === "string") return utf8(body);
  if (body instanceof Uint8Array) return body;
  throw new TypeError("body must be a Uint8Array or a string");
}
function checkAlgorithms(algorithms, what) {
  if (!Array.isArray(algorithms)) throw new TypeError(`${what} must be an array`);
  for (const a of algorithms) {
    if (typeof a !== "string" || !isDigestAlgorithm(a)) throw new TypeError(`${what} may only contain 'sha-256' and 'sha-512'`);
  }
}
async function digest(alg, body) {
  return new Uint8Array(await getSubtle().digest(WEBCRYPTO_NAME[alg].name, body));
}
async function createContentDigest(body, algorithms = ["sha-256"]) {
  const bytes2 = toBytes(body);
  checkAlgorithms(algorithms, "algorithms");
  if (algorithms.length === 0) throw new TypeError("algorithms must name at least one algorithm");
  const unique = [...new Set(algorithms)];
  const digests = await Promise.all(unique.map((a) => digest(a, bytes2)));
  let out = "";
  for (let i = 0; i < unique.length; i++) {
    out += (i === 0 ? "" : ", ") + unique[i] + "=:" + base64Encode(digests[i]) + ":";
  }
  return out;
}
async function verifyContentDigest(header3, body, options) {
  if (typeof header3 !== "string") throw new TypeError("header must be a string");
  const bytes2 = toBytes(body);
  const required = options?.require ?? [];
  checkAlgorithms(required, "options.require");
  let dict;
  try {
    dict = parseDictionary(header3);
  } catch (error) {
    if (isBotsigError(error)) throw new BotsigError("ERR_DIGEST_INVALID", "Content-Digest is not a valid Structured Field Dictionary", { cause: error });
    throw error;
  }
  const expected = [];
  for (const [key, member] of dict) {
    if (!isDigestAlgorithm(key)) continue;
    if (member.kind !== "item" || member.value.type !== "binary") {
      throw new BotsigError("ERR_DIGEST_INVALID", `Content-Digest member ${key} is not a Byte Sequence`);
    }
    if (member.value.value.length !== WEBCRYPTO_NAME[key].bytes) {
      throw new BotsigError("ERR_DIGEST_INVALID", `Content-Digest member ${key} has the wrong length`);
    }
    expected.push([key, member.value.value]);
  }
  for (const alg of required) {
    if (!dict.has(alg)) throw new BotsigError("ERR_DIGEST_INVALID", `Content-Digest lacks the required ${alg} digest`);
  }
  if (expected.length === 0) throw new BotsigError("ERR_DIGEST_INVALID", "Content-Digest has no sha-256 or sha-512 digest");
  const actual = await Promise.all(expected.map(([alg]) => digest(alg, bytes2)));
  for (let i = 0; i < expected.length; i++) {
    if (!bytesEqual(actual[i], expected[i][1])) {
      throw new BotsigError("ERR_DIGEST_MISMATCH", `Content-Digest ${expected[i][0]} does not match the content`);
    }
  }
}
var WEBCRYPTO_NAME;
var init_digest = __esm({
  "../head/src/crypto/digest.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_sf();
    init_webcrypto();
    WEBCRYPTO_NAME = {
      "sha-256": { name: "SHA-256", bytes: 32 },
      "sha-512": { name: "SHA-512", bytes: 64 }
    };
  }
});

// ../head/src/profile/body/read.ts
function tooLarge(maxBytes) {
  return new BotsigError("ERR_BODY_TOO_LARGE", `the message content is larger than the ${maxBytes}-byte limit (maxBodyBytes)`);
}
function unavailable(why, cause) {
  return new BotsigError("ERR_BODY_UNAVAILABLE", `the message content cannot be read: ${why}`, cause === void 0 ? void 0 : { cause });
}
function isFetchBody(value) {
  const v = value;
  return typeof v.clone === "function" && typeof v.bodyUsed === "boolean" && "body" in v && typeof v.headers === "object" && v.headers !== null;
}
function isStream(value) {
  return typeof value === "object" && value !== null && typeof value.getReader === "function";
}
function declaredTooLarge(headers, maxBytes) {
  const declared = headers.get("content-length");
  if (declared === null || !/^\d{1,16}$/.test(declared.trim())) return false;
  return Number(declared.trim()) > maxBytes;
}
async function readMessageBody(input, maxBytes) {
  if (typeof input !== "object" || input === null || isHttpMessage(input)) throw unavailable("no body was given with the message");
  if (isFetchBody(input)) {
    if (input.body === null) return EMPTY;
    if (input.bodyUsed) throw unavailable("the body was already read");
    if (declaredTooLarge(input.headers, maxBytes)) throw tooLarge(maxBytes);
    let copy;
    try {
      copy = input.clone();
    } catch (error) {
      throw unavailable("the message cannot be cloned (its body is locked or used)", error);
    }
    return readBodyValue(copy.body, maxBytes);
  }
  if (!("body" in input)) throw unavailable("no body was given with the message");
  let value = input.body;
  if (typeof value === "function") {
    try {
      value = await value(maxBytes);
    } catch (error) {
      if (isBotsigError(error)) throw error;
      throw unavailable("the body reader failed", error);
    }
  }
  return readBodyValue(value, maxBytes);
}
async function readBodyValue(value, maxBytes) {
  if (value === null || value === void 0) return EMPTY;
  if (typeof value === "string") {
    if (value.length > maxBytes) throw tooLarge(maxBytes);
    const bytes2 = utf8(value);
    if (bytes2.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes2;
  }
  if (value instanceof Uint8Array) {
    if (value.byteLength > maxBytes) throw tooLarge(maxBytes);
    return value;
  }
  if (value instanceof ArrayBuffer) {
    if (value.byteLength > maxBytes) throw tooLarge(maxBytes);
    return new Uint8Array(value);
  }
  if (ArrayBuffer.isView(value)) {
    if (value.byteLength > maxBytes) throw tooLarge(maxBytes);
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  if (isStream(value)) return readStream(value, maxBytes);
  throw unavailable("the body is not text, bytes, an ArrayBuffer or a stream of bytes");
}
async function readStream(stream, maxBytes) {
  if (stream.locked) throw unavailable("the body stream is locked (something else is reading it)");
  let reader;
  try {
    reader = stream.getReader();
  } catch (error) {
    throw unavailable("the body stream cannot be read", error);
  }
  const chunks = [];
  let total = 0;
  try {
    for (; ; ) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = chunkBytes(value);
      total += chunk.byteLength;
      if (total > maxBytes) {
        chunks.length = 0;
        reader.cancel().catch(() => void 0);
        throw tooLarge(maxBytes);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw unavailable("the body stream failed", error);
  } finally {
    try {
      reader.releaseLock();
    } catch {
    }
  }
  return concat(chunks, total);
}
function chunkBytes(value) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw unavailable("the body stream yields something other than bytes");
}
function concat(chunks, total) {
  if (chunks.length === 0) return EMPTY;
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
function replayStream(bytes2) {
  return new ReadableStream({
    start(controller) {
      if (bytes2.byteLength > 0) controller.enqueue(bytes2);
      controller.close();
    }
  });
}
var EMPTY;
var init_read = __esm({
  "../head/src/profile/body/read.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_message();
    EMPTY = new Uint8Array(0);
  }
});

// ../head/src/profile/body/sign.ts
var sign_exports = {};
__export(sign_exports, {
  DEFAULT_SIGN_MAX_BODY_BYTES: () => DEFAULT_SIGN_MAX_BODY_BYTES,
  checkDigestAlgorithm: () => checkDigestAlgorithm,
  checkMaxBodyBytes: () => checkMaxBodyBytes,
  contentDigestToSign: () => contentDigestToSign
});
function checkDigestAlgorithm(value, name = "contentDigest") {
  if (value !== "sha-256" && value !== "sha-512") throw new TypeError(`${name} must be 'sha-256' or 'sha-512' (RFC 9530 \xA77.2, the active algorithms)`);
  return value;
}
function checkMaxBodyBytes(value, fallback, name = "maxBodyBytes") {
  if (value === void 0) return fallback;
  if (typeof value !== "number") throw new TypeError(`${name} must be a number of bytes`);
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return value;
}
async function contentDigestToSign(message, algorithm, maxBodyBytes, defaultMaxBytes = DEFAULT_SIGN_MAX_BODY_BYTES) {
  const alg = checkDigestAlgorithm(algorithm);
  const max = checkMaxBodyBytes(maxBodyBytes, defaultMaxBytes);
  const replaceStream = streamBodyHolder(message);
  const bytes2 = await readMessageBody(message, max);
  if (replaceStream !== void 0) replaceStream.body = replayStream(bytes2);
  const existing = isHttpMessage(message) ? message.headers.get("content-digest") : toReceivedMessage(message).headers.get("content-digest");
  const value = existing === void 0 ? void 0 : joinLines(existing);
  if (value === void 0) return createContentDigest(bytes2, [alg]);
  try {
    await verifyContentDigest(value, bytes2);
  } catch (error) {
    if (error instanceof BotsigError) {
      throw new BotsigError(
        error.code,
        `the message already carries a Content-Digest that ${error.code === "ERR_DIGEST_MISMATCH" ? "does not match its content" : "cannot be checked"}; remove it to have it computed`,
        { cause: error }
      );
    }
    throw error;
  }
  return value;
}
function streamBodyHolder(message) {
  if (typeof message !== "object" || message === null || isHttpMessage(message)) return void 0;
  if (typeof message.clone === "function") return void 0;
  const body = message.body;
  if (typeof body !== "object" || body === null || typeof body.getReader !== "function") return void 0;
  const holder = message;
  const own4 = Object.getOwnPropertyDescriptor(holder, "body");
  if (Object.isFrozen(holder) || own4 !== void 0 && own4.writable !== true && own4.set === void 0) {
    throw new TypeError("a stream body is read to digest it and replaced by a stream of the same bytes: the message object must let body be replaced");
  }
  return holder;
}
function joinLines(lines) {
  let out = "";
  for (const line of lines) {
    const t = line.trim();
    if (t !== "") out = out === "" ? t : out + ", " + t;
  }
  return out === "" ? void 0 : out;
}
var DEFAULT_SIGN_MAX_BODY_BYTES;
var init_sign = __esm({
  "../head/src/profile/body/sign.ts"() {
    "use strict";
    init_errors();
    init_digest();
    init_message();
    init_read();
    DEFAULT_SIGN_MAX_BODY_BYTES = 16 * 1024 * 1024;
  }
});

// ../head/src/profile/body/check.ts
var check_exports = {};
__export(check_exports, {
  checkContentDigest: () => checkContentDigest,
  loadBody: () => loadBody
});
function loadBody(input, maxBytes) {
  return readMessageBody(input, maxBytes).catch(
    (error) => isBotsigError(error) ? error : new BotsigError("ERR_BODY_UNAVAILABLE", "the message content cannot be read", { cause: error })
  );
}
async function checkContentDigest(message, covered, body) {
  const content = await body;
  if (isBotsigError(content)) return { status: "unchecked", error: content.toJSON() };
  const algorithms = /* @__PURE__ */ new Set();
  try {
    for (const id of covered) {
      const value = fieldValue2(id.params.has("tr") ? message.trailers : message.headers);
      if (value === void 0) throw new BotsigError("ERR_DIGEST_INVALID", "the covered Content-Digest field is absent");
      const key = id.params.get("key");
      if (key !== void 0) {
        if (key.type !== "string" || key.value !== "sha-256" && key.value !== "sha-512") {
          throw new BotsigError("ERR_DIGEST_INVALID", "the covered Content-Digest member is not sha-256 or sha-512 (RFC 9530 \xA77.2)");
        }
        await verifyContentDigest(value, content, { require: [key.value] });
      } else {
        await verifyContentDigest(value, content);
      }
      for (const name of parseDictionary(value).keys()) if (name === "sha-256" || name === "sha-512") algorithms.add(name);
    }
  } catch (error) {
    const info = isBotsigError(error) ? error.toJSON() : { code: "ERR_DIGEST_INVALID", message: "Content-Digest cannot be checked" };
    return { status: "failed", error: info };
  }
  return { status: "matched", algorithms: [...algorithms] };
}
function fieldValue2(fields) {
  const lines = fields?.get("content-digest");
  if (lines === void 0) return void 0;
  let out = "";
  for (const line of lines) {
    const t = line.trim();
    if (t !== "") out = out === "" ? t : out + ", " + t;
  }
  return out === "" ? void 0 : out;
}
var init_check = __esm({
  "../head/src/profile/body/check.ts"() {
    "use strict";
    init_errors();
    init_sf();
    init_digest();
    init_read();
  }
});

// ../head/src/core/options.ts
function checkOptionNames(options, known, where3) {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const suggestion = closest(name, known);
    throw new TypeError(`${where3}: unknown option "${name}"${suggestion === void 0 ? "" : ` (did you mean "${suggestion}"?)`}`);
  }
}
function closest(name, known) {
  const lower = name.toLowerCase();
  let best;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    const d = editDistance(lower, candidate.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
function editDistance(a, b, limit) {
  if (a.length > 64 || b.length > 64 || Math.abs(a.length - b.length) >= limit) return limit;
  const m = b.length;
  let prevPrev = new Array(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let row = new Array(m + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        v = Math.min(v, prevPrev[j - 2] + 1);
      }
      row[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin >= limit) return limit;
    [prevPrev, prev, row] = [prev, row, prevPrev];
  }
  return Math.min(prev[m], limit);
}
var init_options = __esm({
  "../head/src/core/options.ts"() {
    "use strict";
  }
});

// ../head/src/directory/outbound.ts
function waitForSlot(state, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      const i = state.waiting.indexOf(wake);
      if (i >= 0) state.waiting.splice(i, 1);
      reject(limited("no slot of this host became free in time"));
    };
    const wake = () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    if (signal?.aborted === true) {
      reject(limited("no slot of this host became free in time"));
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    state.waiting.push(wake);
  });
}
function limited(message) {
  return new BotsigError("ERR_DISCOVERY_LIMITED", `${message}; not fetched`);
}
function siteOf(host) {
  if (host.startsWith("[") || /^[0-9.]+$/.test(host)) return host;
  const labels = host.split(".");
  const n = labels.length;
  if (n <= 2) return host;
  const take = labels[n - 1].length === 2 && SECOND_LEVEL.has(labels[n - 2]) ? 3 : 2;
  return labels.slice(n - take).join(".");
}
var OUTBOUND_DEFAULTS, HOST_BACKOFF_BASE_MS, MAX_WAITING_PER_HOST, OutboundLimiter, SECOND_LEVEL;
var init_outbound = __esm({
  "../head/src/directory/outbound.ts"() {
    "use strict";
    init_bounded_map();
    init_errors();
    OUTBOUND_DEFAULTS = Object.freeze({
      maxConcurrent: 16,
      maxConcurrentPerHost: 2,
      fetchesPerSecond: 20,
      newHostsPerSitePerMinute: 16,
      hostFailureThreshold: 2,
      maxHosts: 1e4
    });
    HOST_BACKOFF_BASE_MS = 5e3;
    MAX_WAITING_PER_HOST = 16;
    OutboundLimiter = class {
      #s;
      #now;
      /** Least recently admitted hosts forgotten beyond `maxHosts`, never one with an exchange in flight or waiting. */
      #hosts;
      /** Least recently counted sites forgotten beyond `maxHosts`. */
      #sites;
      #inFlight = 0;
      #tokens;
      #refilledAtMs;
      constructor(settings, now) {
        this.#s = settings;
        this.#now = now;
        this.#hosts = new BoundedMap(settings.maxHosts, (h) => h.inFlight === 0 && h.waiting.length === 0);
        this.#sites = new BoundedMap(settings.maxHosts);
        this.#tokens = this.#burst();
        this.#refilledAtMs = now();
      }
      /** In-flight fetches, all hosts together. */
      get inFlight() {
        return this.#inFlight;
      }
      /**
       * Admits one fetch to `host` (a lowercase host name or IP literal). While the
       * host's own slots are taken the exchange waits (at most 16 per host, and no
       * longer than `signal` allows); every other limit answers at once.
       * `trusted` hosts (the operator's allow-list, loopback in development) skip the
       * failure back-off and the new-host allowance, not the concurrency and rate.
       *
       * @throws BotsigError `ERR_DISCOVERY_LIMITED` (as a rejection) when a limit is
       *   reached or the host is backing off after failures.
       */
      async admit(host, trusted, signal) {
        const s = this.#s;
        for (let state = this.#hosts.get(host); state !== void 0 && state.inFlight >= s.maxConcurrentPerHost; state = this.#hosts.get(host)) {
          if (state.waiting.length >= MAX_WAITING_PER_HOST) throw limited(`${MAX_WAITING_PER_HOST} fetches already wait for this host`);
          await waitForSlot(state, signal);
        }
        return this.#take(host, trusted);
      }
      #take(host, trusted) {
        const now = this.#now();
        const s = this.#s;
        let state = this.#hosts.get(host);
        if (state !== void 0 && !trusted && now < state.retryAtMs) {
          throw limited(`the host failed ${state.failures} times in a row and is backing off`);
        }
        if (this.#inFlight >= s.maxConcurrent) throw limited(`${s.maxConcurrent} directory fetches are already in flight`);
        this.#refill(now);
        if (this.#tokens < 1) throw limited(`more than ${s.fetchesPerSecond} directory fetches per second`);
        if (state === void 0 && !trusted) {
          const site = siteOf(host);
          let siteState = this.#sites.get(site);
          if (siteState === void 0 || now - siteState.windowStartMs >= 6e4) {
            siteState = { windowStartMs: now, newHosts: 0 };
          }
          if (siteState.newHosts >= s.newHostsPerSitePerMinute) {
            throw limited(`more than ${s.newHostsPerSitePerMinute} new hosts of one site per minute`);
          }
          siteState.newHosts++;
          this.#sites.set(site, siteState);
        }
        state ??= { inFlight: 0, failures: 0, retryAtMs: 0, waiting: [] };
        this.#hosts.set(host, state);
        this.#tokens -= 1;
        this.#inFlight++;
        state.inFlight++;
        const held = state;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          this.#inFlight--;
          held.inFlight--;
          held.waiting.shift()?.();
        };
      }
      /**
       * Records how an exchange with `host` ended: a usable answer resets the host's
       * failure count; a failure (network, timeout, status, oversize, or a body that
       * is not a usable directory) counts towards its back-off.
       */
      report(host, ok) {
        const state = this.#hosts.get(host);
        if (state === void 0) return;
        if (ok) {
          state.failures = 0;
          state.retryAtMs = 0;
          return;
        }
        state.failures++;
        const s = this.#s;
        if (state.failures >= s.hostFailureThreshold) {
          const exponent = Math.min(state.failures - s.hostFailureThreshold, 16);
          state.retryAtMs = this.#now() + Math.min(s.maxBackoffMs, HOST_BACKOFF_BASE_MS * 2 ** exponent);
        }
      }
      #burst() {
        return Math.max(1, this.#s.fetchesPerSecond * 2);
      }
      #refill(now) {
        const elapsed = now - this.#refilledAtMs;
        if (elapsed <= 0) return;
        this.#tokens = Math.min(this.#burst(), this.#tokens + elapsed * this.#s.fetchesPerSecond / 1e3);
        this.#refilledAtMs = now;
      }
    };
    SECOND_LEVEL = /* @__PURE__ */ new Set(["co", "com", "net", "org", "gov", "edu", "ac", "or", "ne", "go", "mil", "gv", "nic"]);
  }
});

// ../head/src/directory/document/media-type.ts
function mediaTypeEssence(contentType) {
  const semi = contentType.indexOf(";");
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}
function directoryMediaTypeKind(contentType) {
  if (typeof contentType !== "string") return "other";
  switch (mediaTypeEssence(contentType)) {
    case "application/http-message-signatures-directory+json":
      return "directory";
    case LEGACY_DIRECTORY_MEDIA_TYPE:
      return "legacy-directory";
    case JWK_SET_MEDIA_TYPE:
      return "jwk-set";
    case "application/json":
      return "json";
    default:
      return "other";
  }
}
var LEGACY_DIRECTORY_MEDIA_TYPE, JWK_SET_MEDIA_TYPE;
var init_media_type = __esm({
  "../head/src/directory/document/media-type.ts"() {
    "use strict";
    LEGACY_DIRECTORY_MEDIA_TYPE = "application/http-message-signatures-directory";
    JWK_SET_MEDIA_TYPE = "application/jwk-set+json";
  }
});

// ../head/src/directory/document/key-rules.ts
function own(o, name) {
  return Object.prototype.hasOwnProperty.call(o, name) ? o[name] : void 0;
}
function isPlainObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}
function rsaModulusBits(n) {
  let i = 0;
  while (i < n.length && n[i] === 0) i++;
  if (i === n.length) return 0;
  return (n.length - i - 1) * 8 + (32 - Math.clz32(n[i]));
}
function readTimestamp(o, name, at, ctx, diagnostics) {
  const v = own(o, name);
  if (v === void 0) return void 0;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    diagnostics.push({ level: "error", code: "timestamp-invalid", message: `${name} is not a non-negative integer number of seconds`, at });
    return null;
  }
  if (v > MILLISECONDS_THRESHOLD) {
    if (ctx.strictTimestamps) {
      diagnostics.push({ level: "error", code: "timestamp-milliseconds", message: `${name} looks like milliseconds, not seconds (strict timestamps)`, at });
      return null;
    }
    diagnostics.push({ level: "warning", code: "timestamp-milliseconds", message: `${name} looks like milliseconds; read as ${name}/1000 seconds`, at });
    return Math.floor(v / 1e3);
  }
  return v;
}
function checkKey2(entry, index, ctx) {
  const at = `keys[${index}]`;
  const diagnostics = [];
  const error = (code, message) => {
    diagnostics.push({ level: "error", code, message, at });
  };
  if (!isPlainObject(entry)) {
    error("key-not-object", "entry is not a JSON object");
    return { key: void 0, diagnostics };
  }
  const privateFound = PRIVATE_MEMBERS2.filter((m) => own(entry, m) !== void 0);
  if (privateFound.length > 0) {
    error("private-key-material", `entry carries private member(s) ${privateFound.join(", ")}; a directory publishes public keys only`);
  }
  let materialOk = false;
  let typeOk = false;
  const kty = own(entry, "kty");
  const crv = own(entry, "crv");
  if (kty !== "OKP" && kty !== "EC" && kty !== "RSA") {
    error(
      "kty-unsupported",
      kty === "oct" ? 'kty "oct" is a shared secret, which is not allowed (SPEC 1 rule 7)' : "kty is missing or not one of OKP, EC, RSA"
    );
  } else if (kty === "RSA") {
    const n = own(entry, "n");
    const e = own(entry, "e");
    typeOk = true;
    if (typeof n !== "string" || n === "" || typeof e !== "string" || e === "") {
      error("key-material-missing", "an RSA key needs string members n and e");
    } else {
      const nBytes = base64UrlDecode(n);
      const eBytes = base64UrlDecode(e);
      if (nBytes === void 0 || eBytes === void 0 || eBytes.length === 0) {
        error("key-material-invalid", "n or e is not valid base64url");
      } else {
        const bits = rsaModulusBits(nBytes);
        if (bits < RSA_MIN_MODULUS_BITS || bits > RSA_MAX_MODULUS_BITS) {
          error("key-material-invalid", `RSA modulus of ${bits} bits is outside ${RSA_MIN_MODULUS_BITS}\u2013${RSA_MAX_MODULUS_BITS}`);
        } else materialOk = true;
      }
    }
  } else if (typeof crv !== "string" || !CURVES[kty].includes(crv)) {
    error("crv-unsupported", kty === "OKP" ? "an OKP key must have crv Ed25519" : "an EC key must have crv P-256 or P-384");
  } else {
    typeOk = true;
    const names = kty === "EC" ? ["x", "y"] : ["x"];
    const values = names.map((m) => own(entry, m));
    if (values.some((v) => typeof v !== "string" || v === "")) {
      error("key-material-missing", kty === "EC" ? "an EC key needs string members x and y" : "an OKP key needs a string member x");
    } else {
      const size = COORDINATE_BYTES[crv];
      if (values.every((v) => base64UrlDecode(v)?.length === size)) materialOk = true;
      else error("key-material-invalid", `${names.join(" and ")} must be base64url of ${size} bytes for ${crv}`);
    }
  }
  const use = own(entry, "use");
  if (use !== void 0 && use !== "sig") error("use-not-sig", 'use is not "sig"');
  const keyOps = own(entry, "key_ops");
  if (keyOps !== void 0 && !(Array.isArray(keyOps) && keyOps.includes("verify"))) {
    error("key-ops-not-verify", 'key_ops does not include "verify"');
  }
  let alg;
  const algValue = own(entry, "alg");
  if (algValue !== void 0) {
    if (typeof algValue !== "string") error("alg-unknown", "alg is not a string");
    else if (ALGORITHMS.includes(algValue)) alg = algValue;
    else if (algValue === "hmac-sha256" || algValue.startsWith("HS")) {
      error("alg-not-allowed", "shared-secret (HMAC) algorithms are not allowed (SPEC 5)");
    } else {
      alg = joseAlgToHttpSig(algValue);
      if (alg === void 0) error("alg-unknown", "alg is not in the HTTP Signature Algorithms registry (RFC 9421 \xA76.2)");
      else {
        diagnostics.push({
          level: "warning",
          code: "alg-jose-name",
          message: `alg uses the JOSE name ${algValue}; read as ${alg}`,
          at
        });
      }
    }
    if (alg !== void 0 && typeOk && !jwkFitsAlgorithm(entry, alg)) {
      error("alg-key-mismatch", `the key type does not fit alg ${alg}`);
      alg = void 0;
    }
  } else if (materialOk) {
    alg = inferAlgorithm({ kty, ...typeof crv === "string" ? { crv } : {} });
  }
  const kid = own(entry, "kid");
  let thumbprint;
  if (kid !== void 0 && typeof kid !== "string") error("kid-invalid", "kid is not a string");
  if (materialOk) {
    try {
      thumbprint = jwkThumbprintSync(entry);
    } catch {
      error("key-material-invalid", "cannot compute the JWK thumbprint");
    }
    if (thumbprint !== void 0 && typeof kid === "string" && kid !== thumbprint && ctx.kidMustBeThumbprint) {
      error("kid-not-thumbprint", "kid is not the JWK SHA-256 thumbprint of the key (RFC 7638, SPEC 2.2)");
    }
  }
  const nbf = readTimestamp(entry, "nbf", at, ctx, diagnostics);
  const exp = readTimestamp(entry, "exp", at, ctx, diagnostics);
  if (typeof nbf === "number" && typeof exp === "number" && nbf > exp) error("validity-inverted", "nbf is after exp");
  const x5c = own(entry, "x5c");
  if (x5c !== void 0 && !(Array.isArray(x5c) && x5c.length > 0 && x5c.length <= MAX_X5C_CERTIFICATES && x5c.every((c) => typeof c === "string" && c !== "" && base64Decode(c) !== void 0))) {
    error("x5c-invalid", `x5c is not a list of 1\u2013${MAX_X5C_CERTIFICATES} base64 DER certificates`);
  }
  const x5u = own(entry, "x5u");
  if (x5u !== void 0 && !(typeof x5u === "string" && tryParseUrl(x5u)?.protocol === "https:")) {
    error("x5u-invalid", "x5u is not an absolute https URL");
  }
  if (diagnostics.some((d) => d.level === "error") || thumbprint === void 0) return { key: void 0, diagnostics };
  const jwk = { kty };
  for (const name of PUBLIC_MEMBERS2) {
    if (name === "kty") continue;
    let v = own(entry, name);
    if (v === void 0) continue;
    if (name === "alg") v = alg;
    else if (name === "nbf") v = nbf;
    else if (name === "exp") v = exp;
    else if (Array.isArray(v)) v = v.slice();
    if (v !== void 0) jwk[name] = v;
  }
  const key = {
    jwk,
    thumbprint,
    ...alg === void 0 ? {} : { alg },
    ...typeof kid === "string" ? { kid } : {},
    ...typeof nbf === "number" ? { nbf } : {},
    ...typeof exp === "number" ? { exp } : {},
    index,
    ...Array.isArray(x5c) ? { x5c: x5c.slice() } : {},
    ...typeof x5u === "string" ? { x5u } : {}
  };
  return { key, diagnostics };
}
var MAX_X5C_CERTIFICATES, MILLISECONDS_THRESHOLD, PRIVATE_MEMBERS2, PUBLIC_MEMBERS2, CURVES, COORDINATE_BYTES;
var init_key_rules = __esm({
  "../head/src/directory/document/key-rules.ts"() {
    "use strict";
    init_base64();
    init_url();
    init_registry();
    init_thumbprint();
    MAX_X5C_CERTIFICATES = 16;
    MILLISECONDS_THRESHOLD = 1e11;
    PRIVATE_MEMBERS2 = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
    PUBLIC_MEMBERS2 = ["kty", "crv", "x", "y", "n", "e", "alg", "kid", "use", "key_ops", "nbf", "exp", "x5c", "x5u"];
    CURVES = { OKP: ["Ed25519"], EC: ["P-256", "P-384"] };
    COORDINATE_BYTES = { Ed25519: 32, "P-256": 32, "P-384": 48 };
  }
});

// ../head/src/directory/document/parse.ts
function invalid2(message, cause) {
  return new BotsigError("ERR_DIRECTORY_INVALID", message, cause === void 0 ? void 0 : { cause });
}
function toJson(input) {
  let text;
  if (typeof input === "string") text = input;
  else if (input instanceof Uint8Array) {
    try {
      text = utf8Decoder2.decode(input);
    } catch (error) {
      throw invalid2("directory is not UTF-8", error);
    }
  } else return input;
  if (text.charCodeAt(0) === 65279) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalid2("directory is not JSON", error);
  }
}
function endsWithWellKnown(url) {
  const parsed = tryParseUrl(url);
  return parsed !== void 0 && parsed.pathname.endsWith(WELL_KNOWN_PATH);
}
function checkOptions3(options) {
  if (options === void 0) return;
  if (typeof options !== "object" || options === null) throw new TypeError("parseDirectory options must be an object");
  const { maxKeys, source, url, now } = options;
  if (maxKeys !== void 0 && (!Number.isSafeInteger(maxKeys) || maxKeys < 1)) throw new TypeError("maxKeys must be a positive integer");
  if (source !== void 0 && source !== "well-known" && source !== "jwks_uri" && source !== "cimd" && source !== "inline") {
    throw new TypeError("source must be well-known, jwks_uri, cimd or inline");
  }
  if (url !== void 0 && typeof url !== "string") throw new TypeError("url must be a string");
  if (now !== void 0 && typeof now !== "function") throw new TypeError("now must be a function returning milliseconds");
}
function parseDirectorySync(input, options) {
  checkOptions3(options);
  const maxKeys = options?.maxKeys ?? DEFAULT_MAX_KEYS;
  const source = options?.source;
  const ctx = {
    kidMustBeThumbprint: source === "well-known" || source === "inline" || source === void 0 && (options?.url === void 0 || endsWithWellKnown(options.url)),
    strictTimestamps: options?.strictTimestamps === true
  };
  const doc = toJson(input);
  if (!isPlainObject(doc)) throw invalid2("directory is not a JSON object");
  const diagnostics = [];
  let entries;
  let shape;
  const keysMember = own(doc, "keys");
  if (Array.isArray(keysMember)) {
    shape = "jwks";
    entries = keysMember;
  } else if (isPlainObject(keysMember)) {
    shape = "single-object-keys";
    entries = [keysMember];
    diagnostics.push({ level: "warning", code: "keys-object", message: '"keys" is a single object (an early revision); read as a one-key set' });
  } else if (keysMember === void 0 && own(doc, "kty") !== void 0) {
    shape = "bare-jwk";
    entries = [doc];
    diagnostics.push({ level: "warning", code: "bare-jwk", message: "directory is a single JWK, not a JWK Set; read as a one-key set" });
  } else {
    throw invalid2(keysMember === void 0 ? 'directory has no "keys" member' : '"keys" is neither an array nor an object');
  }
  if (entries.length > maxKeys) {
    diagnostics.push({
      level: "error",
      code: "too-many-keys",
      message: `directory lists ${entries.length} keys; only the first ${maxKeys} are read`
    });
  }
  const count = Math.min(entries.length, maxKeys);
  if (count === 0) diagnostics.push({ level: "warning", code: "no-keys", message: "directory lists no keys" });
  const nowSeconds = options?.now === void 0 ? void 0 : Math.floor(options.now() / 1e3);
  const keys = [];
  const seen = /* @__PURE__ */ new Set();
  for (let i = 0; i < count; i++) {
    const verdict = checkKey2(entries[i], i, ctx);
    for (const d of verdict.diagnostics) diagnostics.push(d);
    const key = verdict.key;
    if (key === void 0) continue;
    if (seen.has(key.thumbprint)) {
      diagnostics.push({
        level: "warning",
        code: "key-duplicate",
        message: "the same key appears earlier in the directory; this entry is ignored",
        at: `keys[${i}]`
      });
      continue;
    }
    seen.add(key.thumbprint);
    if (nowSeconds !== void 0) {
      if (key.exp !== void 0 && nowSeconds >= key.exp) {
        diagnostics.push({ level: "warning", code: "key-expired", message: "key is past its exp (SPEC 2.2: remove expired keys)", at: `keys[${i}]` });
      } else if (key.nbf !== void 0 && nowSeconds < key.nbf) {
        diagnostics.push({ level: "warning", code: "key-not-yet-valid", message: "key is before its nbf", at: `keys[${i}]` });
      }
    }
    keys.push(key);
  }
  return { keys, diagnostics, shape };
}
var DEFAULT_MAX_KEYS, utf8Decoder2;
var init_parse2 = __esm({
  "../head/src/directory/document/parse.ts"() {
    "use strict";
    init_errors();
    init_url();
    init_signature_agent();
    init_key_rules();
    DEFAULT_MAX_KEYS = 64;
    utf8Decoder2 = new TextDecoder("utf-8", { fatal: true });
  }
});

// ../head/src/directory/document.ts
var init_document = __esm({
  "../head/src/directory/document.ts"() {
    "use strict";
    init_media_type();
    init_parse2();
  }
});

// ../head/src/directory/client/fail.ts
function fail3(code, message, cause) {
  return new BotsigError(code, message, cause === void 0 ? void 0 : { cause });
}
function toBotsigError(error, fallback) {
  if (isBotsigError(error)) return error;
  return fail3("ERR_DIRECTORY_FETCH", fallback, error);
}
var init_fail = __esm({
  "../head/src/directory/client/fail.ts"() {
    "use strict";
    init_errors();
  }
});

// ../head/src/directory/delegation/types.ts
var DELEGATION_FORMS, DEFAULT_MAX_CHAIN_LENGTH, MAX_CHAIN_LENGTH_LIMIT;
var init_types2 = __esm({
  "../head/src/directory/delegation/types.ts"() {
    "use strict";
    DELEGATION_FORMS = Object.freeze(["x5c", "aia", "x5u"]);
    DEFAULT_MAX_CHAIN_LENGTH = 5;
    MAX_CHAIN_LENGTH_LIMIT = 16;
  }
});

// ../head/src/directory/delegation/der.ts
function derFrameLength(bytes2) {
  if (bytes2.length < 2 || bytes2[0] !== 48) return -1;
  const first = bytes2[1];
  if (first < 128) return 2 + first;
  const n = first & 127;
  if (n === 0 || n > 3 || bytes2.length < 2 + n) return -1;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + bytes2[2 + i];
  if (len < 128 || n > 1 && bytes2[2] === 0) return -1;
  return 2 + n + len;
}
function isWhole(bytes2) {
  return derFrameLength(bytes2) === bytes2.length;
}
function derHeader(tag, length) {
  if (length < 128) return [tag, length];
  const octets = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) octets.unshift(n % 256);
  return [tag, 128 | octets.length, ...octets];
}
function stripBase64Whitespace(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    out += text[i];
  }
  return out;
}
function pemBlocks(text, max) {
  const out = [];
  let from = 0;
  for (; ; ) {
    const begin = text.indexOf(PEM_BEGIN, from);
    if (begin < 0) break;
    const end = text.indexOf(PEM_END, begin + PEM_BEGIN.length);
    if (end < 0) return void 0;
    if (out.length >= max) return void 0;
    const body = stripBase64Whitespace(text.slice(begin + PEM_BEGIN.length, end));
    const der = base64Decode(body);
    if (der === void 0 || der.length === 0 || der.length > MAX_CERTIFICATE_BYTES || !isWhole(der)) return void 0;
    out.push(der);
    from = end + PEM_END.length;
  }
  return out;
}
function decodeCertificates(bytes2, max = MAX_CHAIN_LENGTH_LIMIT) {
  if (!(bytes2 instanceof Uint8Array)) throw new TypeError("decodeCertificates expects bytes");
  if (bytes2.length > 0 && bytes2[0] === 48) {
    if (bytes2.length > MAX_CERTIFICATE_BYTES || !isWhole(bytes2))
      throw new BotsigError("ERR_DELEGATION_INVALID", "the certificate resource is not one DER certificate");
    return [bytes2];
  }
  const text = latin12.decode(bytes2.length > MAX_CERTIFICATE_BYTES * max ? bytes2.subarray(0, MAX_CERTIFICATE_BYTES * max) : bytes2);
  const blocks = pemBlocks(text, max);
  if (blocks === void 0 || blocks.length === 0) {
    throw new BotsigError("ERR_DELEGATION_INVALID", `the certificate resource is neither DER nor PEM with 1\u2013${max} CERTIFICATE blocks`);
  }
  return blocks;
}
var MAX_CERTIFICATE_BYTES, PEM_BEGIN, PEM_END, latin12;
var init_der = __esm({
  "../head/src/directory/delegation/der.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_types2();
    MAX_CERTIFICATE_BYTES = 16384;
    PEM_BEGIN = "-----BEGIN CERTIFICATE-----";
    PEM_END = "-----END CERTIFICATE-----";
    latin12 = new TextDecoder("latin1");
  }
});

// ../head/src/directory/delegation/asn.ts
function importFailed(error) {
  throw error;
}
function loadAsn() {
  asnModuleCache ??= Promise.all([
    import("@peculiar/asn1-schema").catch(importFailed),
    import("@peculiar/asn1-x509").catch(importFailed),
    import("@peculiar/asn1-ecc").catch(importFailed),
    import("@peculiar/asn1-rsa").catch(importFailed)
  ]).then(
    ([schema, x509, ecc, rsa]) => ({ schema, x509, ecc, rsa }),
    (error) => {
      asnModuleCache = void 0;
      throw new BotsigError(
        "ERR_DELEGATION_INVALID",
        "delegation needs the optional packages @peculiar/asn1-schema, @peculiar/asn1-x509, @peculiar/asn1-ecc and @peculiar/asn1-rsa; install them",
        { cause: error }
      );
    }
  );
  return asnModuleCache;
}
var asnModuleCache, BER_OPTIONS;
var init_asn = __esm({
  "../head/src/directory/delegation/asn.ts"() {
    "use strict";
    init_errors();
    BER_OPTIONS = { berOptions: { maxDepth: 32, maxNodes: 4096, maxContentLength: 65536 } };
  }
});

// ../head/src/directory/delegation/failure.ts
function failure(reason, message) {
  return new ChainFailure(reason, message);
}
function where2(index) {
  return index === 0 ? "certificate 0 (the leaf)" : `certificate ${index}`;
}
var ChainFailure;
var init_failure = __esm({
  "../head/src/directory/delegation/failure.ts"() {
    "use strict";
    ChainFailure = class {
      constructor(reason, message) {
        this.reason = reason;
        this.message = message;
      }
    };
  }
});

// ../head/src/directory/delegation/certificate.ts
function bytes(buffer) {
  return buffer instanceof Uint8Array ? buffer : ArrayBuffer.isView(buffer) ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
}
function parseCertificate(asn, der) {
  if (der.length > MAX_CERTIFICATE_BYTES || !isWhole(der)) return failure("malformed", "not a DER certificate");
  const { AsnConvert } = asn.schema;
  const x = asn.x509;
  try {
    const cert = AsnConvert.parse(der, x.Certificate, BER_OPTIONS);
    const tbs = cert.tbsCertificate;
    if (cert.tbsCertificateRaw === void 0) return failure("malformed", "the signed part of the certificate is missing");
    if (!sameAlgorithm(asn, cert.signatureAlgorithm, tbs.signature)) {
      return failure("malformed", "the signature algorithm differs inside and outside the signed part (RFC 5280 \xA74.1.1.2)");
    }
    if (!isDerCertificate(asn, der, bytes(cert.tbsCertificateRaw), cert.signatureAlgorithm, bytes(cert.signatureValue))) {
      return failure("malformed", "the certificate is not DER encoded around its signed part");
    }
    const subjectDer = bytes(AsnConvert.serialize(tbs.subject));
    const issuerDer = bytes(AsnConvert.serialize(tbs.issuer));
    const spki = tbs.subjectPublicKeyInfo;
    let curve;
    if (spki.algorithm.algorithm === OID.ecPublicKey) {
      const params = spki.algorithm.parameters;
      if (params !== void 0 && params !== null) curve = AsnConvert.parse(params, asn.ecc.ECParameters, BER_OPTIONS).namedCurve;
    }
    let basicConstraints;
    let keyUsage;
    const sanUris = [];
    const sanDns = [];
    const caIssuers = [];
    let unknownCritical;
    const seen = /* @__PURE__ */ new Set();
    for (const ext of tbs.extensions ?? []) {
      const id = ext.extnID;
      if (seen.has(id)) return failure("malformed", "an extension appears twice (RFC 5280 \xA74.2)");
      seen.add(id);
      const value = bytes(ext.extnValue.buffer);
      switch (id) {
        case OID.basicConstraints: {
          const bc = AsnConvert.parse(value, x.BasicConstraints, BER_OPTIONS);
          basicConstraints = { cA: bc.cA === true, pathLen: bc.pathLenConstraint };
          break;
        }
        case OID.keyUsage:
          keyUsage = AsnConvert.parse(value, x.KeyUsage, BER_OPTIONS).toNumber();
          break;
        case OID.subjectAltName:
          for (const name of AsnConvert.parse(value, x.SubjectAlternativeName, BER_OPTIONS)) {
            if (typeof name.uniformResourceIdentifier === "string") sanUris.push(name.uniformResourceIdentifier);
            if (typeof name.dNSName === "string") sanDns.push(name.dNSName);
          }
          break;
        case OID.authorityInfoAccess:
          for (const access of AsnConvert.parse(value, x.AuthorityInfoAccessSyntax, BER_OPTIONS)) {
            const uri = access.accessLocation.uniformResourceIdentifier;
            if (access.accessMethod === OID.caIssuers && typeof uri === "string") caIssuers.push(uri);
          }
          break;
        default:
          if (ext.critical && !PROCESSED_EXTENSIONS.has(id)) unknownCritical ??= id;
      }
    }
    const subjectKey = base64Encode(subjectDer);
    const issuerKey = base64Encode(issuerDer);
    return {
      der,
      tbs: bytes(cert.tbsCertificateRaw),
      signatureAlgorithm: cert.signatureAlgorithm,
      signature: bytes(cert.signatureValue),
      subjectKey,
      issuerKey,
      subject: formatName(tbs.subject),
      notBeforeMs: tbs.validity.notBefore.getTime().getTime(),
      notAfterMs: tbs.validity.notAfter.getTime().getTime(),
      spki: { der: bytes(AsnConvert.serialize(spki)), algorithm: spki.algorithm.algorithm, curve, key: bytes(spki.subjectPublicKey) },
      basicConstraints,
      keyUsage,
      sanUris,
      sanDns,
      caIssuers,
      unknownCritical,
      selfIssued: subjectKey === issuerKey
    };
  } catch {
    return failure("malformed", "not a readable X.509 certificate");
  }
}
function isDerCertificate(asn, der, tbs, algorithm, signature) {
  const alg = bytes(asn.schema.AsnConvert.serialize(algorithm));
  const bitString = derHeader(3, signature.length + 1);
  const contentLength = tbs.length + alg.length + bitString.length + 1 + signature.length;
  const header3 = derHeader(48, contentLength);
  if (der.length !== header3.length + contentLength) return false;
  const expected = new Uint8Array(der.length);
  let o = 0;
  expected.set(header3, o);
  o += header3.length;
  expected.set(tbs, o);
  o += tbs.length;
  expected.set(alg, o);
  o += alg.length;
  expected.set(bitString, o);
  o += bitString.length;
  expected[o++] = 0;
  expected.set(signature, o);
  return bytesEqual(expected, der);
}
function sameAlgorithm(asn, a, b) {
  const { AsnConvert } = asn.schema;
  return bytesEqual(bytes(AsnConvert.serialize(a)), bytes(AsnConvert.serialize(b)));
}
function hex(data) {
  let out = "";
  for (const b of data) out += (b < 16 ? "0" : "") + b.toString(16);
  return out;
}
function escapeValue(value) {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    const c = value.charCodeAt(i);
    if (c < 32 || c === 127) out += "\\" + (c < 16 ? "0" : "") + c.toString(16).toUpperCase();
    else if (ch === '"' || ch === "+" || ch === "," || ch === ";" || ch === "<" || ch === ">" || ch === "\\") out += "\\" + ch;
    else if (i === 0 && (ch === "#" || ch === " ") || i === value.length - 1 && ch === " ") out += "\\" + ch;
    else out += ch;
  }
  return out;
}
function formatName(name) {
  const rdns = [];
  for (let i = name.length - 1; i >= 0; i--) {
    const parts = [];
    for (const atv of name[i]) {
      const type = SHORT_NAMES[atv.type] ?? atv.type;
      const v = atv.value;
      const text = v.anyValue !== void 0 ? "#" + hex(bytes(v.anyValue)) : escapeValue(v.toString());
      parts.push(`${type}=${text}`);
    }
    rdns.push(parts.join("+"));
  }
  const out = rdns.join(",");
  return out.length > MAX_NAME_CHARS ? out.slice(0, MAX_NAME_CHARS) + "\u2026" : out;
}
var MAX_NAME_CHARS, OID, PROCESSED_EXTENSIONS, KEY_USAGE_DIGITAL_SIGNATURE, KEY_USAGE_KEY_CERT_SIGN, SHORT_NAMES;
var init_certificate = __esm({
  "../head/src/directory/delegation/certificate.ts"() {
    "use strict";
    init_base64();
    init_asn();
    init_der();
    init_failure();
    MAX_NAME_CHARS = 512;
    OID = {
      basicConstraints: "2.5.29.19",
      keyUsage: "2.5.29.15",
      extKeyUsage: "2.5.29.37",
      subjectAltName: "2.5.29.17",
      issuerAltName: "2.5.29.18",
      subjectKeyId: "2.5.29.14",
      authorityKeyId: "2.5.29.35",
      crlDistributionPoints: "2.5.29.31",
      certificatePolicies: "2.5.29.32",
      authorityInfoAccess: "1.3.6.1.5.5.7.1.1",
      caIssuers: "1.3.6.1.5.5.7.48.2",
      ed25519: "1.3.101.112",
      ecPublicKey: "1.2.840.10045.2.1",
      rsaEncryption: "1.2.840.113549.1.1.1",
      rsaPss: "1.2.840.113549.1.1.10",
      mgf1: "1.2.840.113549.1.1.8",
      p256: "1.2.840.10045.3.1.7",
      p384: "1.3.132.0.34",
      p521: "1.3.132.0.35"
    };
    PROCESSED_EXTENSIONS = /* @__PURE__ */ new Set([
      OID.basicConstraints,
      OID.keyUsage,
      OID.extKeyUsage,
      OID.subjectAltName,
      OID.issuerAltName,
      OID.subjectKeyId,
      OID.authorityKeyId,
      OID.crlDistributionPoints,
      OID.certificatePolicies,
      OID.authorityInfoAccess
    ]);
    KEY_USAGE_DIGITAL_SIGNATURE = 1;
    KEY_USAGE_KEY_CERT_SIGN = 32;
    SHORT_NAMES = {
      "2.5.4.3": "CN",
      "2.5.4.6": "C",
      "2.5.4.7": "L",
      "2.5.4.8": "ST",
      "2.5.4.9": "STREET",
      "2.5.4.10": "O",
      "2.5.4.11": "OU",
      "0.9.2342.19200300.100.1.1": "UID",
      "0.9.2342.19200300.100.1.25": "DC"
    };
  }
});

// ../head/src/directory/delegation/anchors.ts
function anchorIndex(anchors) {
  let index = anchorIndexCache.get(anchors);
  if (index === void 0) {
    const pending = loadAsn().then((asn) => {
      const byDer = /* @__PURE__ */ new Map();
      const bySubject = /* @__PURE__ */ new Map();
      anchors.certificates.forEach((der, i) => {
        const parsed = parseCertificate(asn, der);
        if (parsed instanceof ChainFailure) throw new TypeError(`trustAnchors[${i}] cannot be read as an X.509 certificate (${parsed.message})`);
        byDer.set(base64Encode(der), parsed);
        const list = bySubject.get(parsed.subjectKey);
        if (list === void 0) bySubject.set(parsed.subjectKey, [parsed]);
        else list.push(parsed);
      });
      return { asn, byDer, bySubject };
    });
    pending.catch((error) => {
      if (isBotsigError(error) && anchorIndexCache.get(anchors) === pending) anchorIndexCache.delete(anchors);
    });
    anchorIndexCache.set(anchors, pending);
    index = pending;
  }
  return index;
}
var TrustAnchors, anchorIndexCache;
var init_anchors = __esm({
  "../head/src/directory/delegation/anchors.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_asn();
    init_certificate();
    init_der();
    init_failure();
    TrustAnchors = class {
      /** DER of each anchor, in the order given. */
      certificates;
      /**
       * @throws TypeError when the list is empty, or an entry is not PEM, base64 DER
       *   or DER bytes of a certificate.
       */
      constructor(list) {
        if (!Array.isArray(list) || list.length === 0) throw new TypeError("trustAnchors must be a non-empty array of certificates (PEM or DER)");
        const certs = [];
        for (let i = 0; i < list.length; i++) {
          const entry = list[i];
          if (entry instanceof Uint8Array) {
            if (!isWhole(entry)) throw new TypeError(`trustAnchors[${i}] is not a DER certificate`);
            certs.push(entry.slice());
          } else if (typeof entry === "string") {
            if (entry.indexOf(PEM_BEGIN) >= 0) {
              const blocks = pemBlocks(entry, 1e3);
              if (blocks === void 0 || blocks.length === 0) throw new TypeError(`trustAnchors[${i}] is not PEM certificate text`);
              for (const b of blocks) certs.push(b);
            } else {
              const der = base64Decode(stripBase64Whitespace(entry));
              if (der === void 0 || !isWhole(der)) throw new TypeError(`trustAnchors[${i}] is neither PEM nor base64 DER of a certificate`);
              certs.push(der);
            }
          } else {
            throw new TypeError(`trustAnchors[${i}] must be PEM text or DER bytes`);
          }
        }
        this.certificates = Object.freeze(certs);
      }
      /**
       * Parses the anchors (once; loads the optional X.509 packages on first call).
       * The client calls it; call it yourself to surface a bad anchor at start-up.
       *
       * @throws BotsigError `ERR_DELEGATION_INVALID` (rejection) when the optional packages are not installed.
       * @throws TypeError (rejection) when an anchor is not an X.509 certificate.
       */
      async load() {
        await anchorIndex(this);
      }
    };
    anchorIndexCache = /* @__PURE__ */ new WeakMap();
  }
});

// ../head/src/directory/delegation/options.ts
function prepareDelegation(options) {
  if (typeof options !== "object" || options === null) throw new TypeError("delegation must be an object with trustAnchors");
  const anchors = new TrustAnchors(options.trustAnchors);
  let forms;
  if (options.forms === void 0) forms = new Set(DELEGATION_FORMS);
  else {
    if (!Array.isArray(options.forms) || options.forms.length === 0) throw new TypeError("delegation.forms must be a non-empty array of x5c, aia, x5u");
    forms = /* @__PURE__ */ new Set();
    for (const f of options.forms) {
      if (f !== "x5c" && f !== "aia" && f !== "x5u") throw new TypeError("delegation.forms entries must be x5c, aia or x5u");
      forms.add(f);
    }
  }
  const max = options.maxChainLength ?? DEFAULT_MAX_CHAIN_LENGTH;
  if (typeof max !== "number" || !Number.isSafeInteger(max) || max < 1 || max > MAX_CHAIN_LENGTH_LIMIT) {
    throw new TypeError(`delegation.maxChainLength must be an integer from 1 to ${MAX_CHAIN_LENGTH_LIMIT}`);
  }
  return { anchors, forms, maxChainLength: max };
}
function hasCertificateChain(key) {
  return Array.isArray(key.x5c) && key.x5c.length > 0 || typeof key.x5u === "string";
}
var init_options2 = __esm({
  "../head/src/directory/delegation/options.ts"() {
    "use strict";
    init_anchors();
    init_types2();
  }
});

// ../head/src/directory/delegation/signatures.ts
function stripZeros(data) {
  let i = 0;
  while (i < data.length - 1 && data[i] === 0) i++;
  return data.subarray(i);
}
function keyMatches(asn, spki, jwk) {
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.x === "string") {
    const x = base64UrlDecode(jwk.x);
    return spki.algorithm === OID.ed25519 && x !== void 0 && bytesEqual(x, spki.key);
  }
  if (jwk.kty === "EC" && typeof jwk.crv === "string" && typeof jwk.x === "string" && typeof jwk.y === "string") {
    const x = base64UrlDecode(jwk.x);
    const y = base64UrlDecode(jwk.y);
    if (spki.algorithm !== OID.ecPublicKey || spki.curve !== JWK_CURVES[jwk.crv] || x === void 0 || y === void 0) return false;
    const point = new Uint8Array(1 + x.length + y.length);
    point[0] = 4;
    point.set(x, 1);
    point.set(y, 1 + x.length);
    return bytesEqual(point, spki.key);
  }
  if (jwk.kty === "RSA" && typeof jwk.n === "string" && typeof jwk.e === "string") {
    const n = base64UrlDecode(jwk.n);
    const e = base64UrlDecode(jwk.e);
    if (spki.algorithm !== OID.rsaEncryption && spki.algorithm !== OID.rsaPss || n === void 0 || e === void 0) return false;
    const rsa = asn.schema.AsnConvert.parse(spki.key, asn.rsa.RSAPublicKey, BER_OPTIONS);
    return bytesEqual(stripZeros(n), stripZeros(bytes(rsa.modulus))) && bytesEqual(stripZeros(e), stripZeros(bytes(rsa.publicExponent)));
  }
  return false;
}
function own2(data) {
  return new Uint8Array(data);
}
function ecdsaRaw(asn, signature, size) {
  const value = asn.schema.AsnConvert.parse(signature, asn.ecc.ECDSASigValue, BER_OPTIONS);
  if (!bytesEqual(bytes(asn.schema.AsnConvert.serialize(value)), signature)) return void 0;
  const r = stripZeros(bytes(value.r));
  const s = stripZeros(bytes(value.s));
  if (r.length > size || s.length > size) return void 0;
  const out = new Uint8Array(2 * size);
  out.set(r, size - r.length);
  out.set(s, 2 * size - s.length);
  return out;
}
async function signedBy(asn, child, issuer) {
  const alg = child.signatureAlgorithm.algorithm;
  const key = issuer.spki;
  const subtle = getSubtle();
  try {
    if (alg === OID.ed25519) {
      if (key.algorithm !== OID.ed25519 || key.key.length !== 32) return "invalid";
      const verify3 = await getCryptoProvider().importVerify({ kty: "OKP", crv: "Ed25519", x: base64UrlEncode(key.key) }, "ed25519");
      return await verify3(child.tbs, child.signature) ? "valid" : "invalid";
    }
    const ecdsaHash = ECDSA_HASHES[alg];
    if (ecdsaHash !== void 0) {
      if (key.algorithm !== OID.ecPublicKey) return "invalid";
      const size = key.curve === void 0 ? void 0 : CURVE_BYTES2[key.curve];
      if (size === void 0 || key.curve === void 0) return failure("unsupported", "an issuer key is on an unsupported elliptic curve");
      const raw = ecdsaRaw(asn, child.signature, size);
      if (raw === void 0) return "invalid";
      const imported = await subtle.importKey("spki", own2(key.der), { name: "ECDSA", namedCurve: CURVE_NAMES[key.curve] }, false, ["verify"]);
      return await subtle.verify({ name: "ECDSA", hash: ecdsaHash }, imported, raw, own2(child.tbs)) ? "valid" : "invalid";
    }
    const pkcs1Hash = RSA_PKCS1_HASHES[alg];
    if (pkcs1Hash !== void 0 || alg === OID.rsaPss) {
      if (key.algorithm !== OID.rsaEncryption)
        return alg === OID.rsaPss && key.algorithm === OID.rsaPss ? failure("unsupported", "RSASSA-PSS issuer keys are not supported") : "invalid";
      let params;
      let hash;
      if (pkcs1Hash !== void 0) {
        params = { name: "RSASSA-PKCS1-v1_5" };
        hash = pkcs1Hash;
      } else {
        const raw = child.signatureAlgorithm.parameters;
        if (raw === void 0 || raw === null) return failure("unsupported", "an RSASSA-PSS signature without parameters (SHA-1) is not accepted");
        const pss = asn.schema.AsnConvert.parse(raw, asn.rsa.RsaSaPssParams, BER_OPTIONS);
        const h = HASH_OIDS[pss.hashAlgorithm.algorithm];
        const mgfHash = pss.maskGenAlgorithm.parameters ? asn.schema.AsnConvert.parse(pss.maskGenAlgorithm.parameters, asn.x509.AlgorithmIdentifier, BER_OPTIONS).algorithm : void 0;
        if (h === void 0 || pss.maskGenAlgorithm.algorithm !== OID.mgf1 || mgfHash !== pss.hashAlgorithm.algorithm || pss.trailerField !== 1) {
          return failure("unsupported", "an RSASSA-PSS signature uses parameters other than SHA-2 with MGF1 of the same hash");
        }
        params = { name: "RSA-PSS", saltLength: pss.saltLength };
        hash = h.name;
      }
      const imported = await subtle.importKey("spki", own2(key.der), { name: params.name, hash }, false, ["verify"]);
      const bits = imported.algorithm.modulusLength;
      if (typeof bits !== "number" || bits < RSA_MIN_BITS) return failure("unsupported", `an issuer RSA key is shorter than ${RSA_MIN_BITS} bits`);
      return await subtle.verify(params, imported, own2(child.signature), own2(child.tbs)) ? "valid" : "invalid";
    }
    return failure("unsupported", "a certificate is signed with an unsupported or weak algorithm (SHA-1, Ed448, \u2026)");
  } catch {
    return "invalid";
  }
}
var CURVE_BYTES2, CURVE_NAMES, JWK_CURVES, ECDSA_HASHES, RSA_PKCS1_HASHES, HASH_OIDS, RSA_MIN_BITS;
var init_signatures = __esm({
  "../head/src/directory/delegation/signatures.ts"() {
    "use strict";
    init_base64();
    init_provider();
    init_webcrypto();
    init_asn();
    init_certificate();
    init_failure();
    CURVE_BYTES2 = { [OID.p256]: 32, [OID.p384]: 48, [OID.p521]: 66 };
    CURVE_NAMES = { [OID.p256]: "P-256", [OID.p384]: "P-384", [OID.p521]: "P-521" };
    JWK_CURVES = { "P-256": OID.p256, "P-384": OID.p384 };
    ECDSA_HASHES = {
      "1.2.840.10045.4.3.2": "SHA-256",
      "1.2.840.10045.4.3.3": "SHA-384",
      "1.2.840.10045.4.3.4": "SHA-512"
    };
    RSA_PKCS1_HASHES = {
      "1.2.840.113549.1.1.11": "SHA-256",
      "1.2.840.113549.1.1.12": "SHA-384",
      "1.2.840.113549.1.1.13": "SHA-512"
    };
    HASH_OIDS = {
      "2.16.840.1.101.3.4.2.1": { name: "SHA-256", bytes: 32 },
      "2.16.840.1.101.3.4.2.2": { name: "SHA-384", bytes: 48 },
      "2.16.840.1.101.3.4.2.3": { name: "SHA-512", bytes: 64 }
    };
    RSA_MIN_BITS = 2048;
  }
});

// ../head/src/directory/delegation/path.ts
async function verifyDelegation(key, options) {
  if (typeof key !== "object" || key === null) throw new TypeError("verifyDelegation expects a JWK");
  if (typeof options !== "object" || options === null || !(options.anchors instanceof TrustAnchors)) {
    throw new TypeError("verifyDelegation options need anchors (a TrustAnchors)");
  }
  const forms = options.forms === void 0 ? new Set(DELEGATION_FORMS) : new Set(options.forms);
  const maxChainLength = options.maxChainLength ?? DEFAULT_MAX_CHAIN_LENGTH;
  if (!Number.isSafeInteger(maxChainLength) || maxChainLength < 1 || maxChainLength > MAX_CHAIN_LENGTH_LIMIT) {
    throw new TypeError(`maxChainLength must be an integer from 1 to ${MAX_CHAIN_LENGTH_LIMIT}`);
  }
  const skewMs = (options.clockSkewSeconds ?? 60) * 1e3;
  if (!Number.isFinite(skewMs) || skewMs < 0) throw new TypeError("clockSkewSeconds must be a non-negative number");
  const now = (options.now ?? systemClock)();
  let index;
  try {
    index = await anchorIndex(options.anchors);
  } catch (error) {
    if (isBotsigError(error)) return { ok: false, reason: "unavailable", error };
    throw error;
  }
  let result;
  try {
    result = await walk(index, key, { forms, maxChainLength, skewMs, now, fetch: options.fetch });
  } catch (error) {
    result = failure("malformed", `the chain could not be checked (${isBotsigError(error) ? error.code : "internal error"})`);
  }
  if (result instanceof ChainFailure) return { ok: false, reason: result.reason, error: new BotsigError("ERR_DELEGATION_INVALID", result.message) };
  return { ok: true, delegation: result };
}
async function fetchCertificates(ctx, url, purpose) {
  if (ctx.fetch === void 0) return failure("fetch-failed", `no fetch is available for the ${purpose === "aia" ? "CA Issuers URI" : "x5u URL"}`);
  let body;
  try {
    body = await ctx.fetch(url, purpose);
  } catch (error) {
    const code = isBotsigError(error) ? error.code : void 0;
    if (code === "ERR_URL_BLOCKED" || code === "ERR_URL_INVALID") {
      return purpose === "aia" ? failure("aia-blocked", `the CA Issuers URI (AIA) of the chain is refused by the URL rules (${code}): ${error instanceof Error ? error.message : ""}`) : failure("x5u-blocked", `the x5u URL is refused by the URL rules (${code}): ${error instanceof Error ? error.message : ""}`);
    }
    const detail = isBotsigError(error) ? `${error.code}: ${error.message}` : "network error";
    return failure("fetch-failed", `the ${purpose === "aia" ? "CA Issuers URI (AIA)" : "x5u URL"} could not be fetched (${detail})`);
  }
  try {
    return decodeCertificates(body, ctx.maxChainLength);
  } catch (error) {
    return failure(
      "malformed",
      isBotsigError(error) ? `${purpose === "aia" ? "the CA Issuers resource" : "the x5u resource"}: ${error.message}` : "unreadable certificate resource"
    );
  }
}
function checkValidity(cert, position, ctx) {
  if (ctx.now + ctx.skewMs < cert.notBeforeMs) {
    return failure("not-yet-valid", `${where2(position)} of the chain is not valid before ${new Date(cert.notBeforeMs).toISOString()}`);
  }
  if (ctx.now - ctx.skewMs > cert.notAfterMs) {
    return failure("expired", `${where2(position)} of the chain expired at ${new Date(cert.notAfterMs).toISOString()}`);
  }
  return void 0;
}
function caIssuersUrl(cert) {
  for (const uri of cert.caIssuers) {
    const parsed = tryParseUrl(uri);
    if (parsed !== void 0 && (parsed.protocol === "http:" || parsed.protocol === "https:")) return parsed.href;
  }
  return void 0;
}
async function walk(index, jwk, ctx) {
  const { asn } = index;
  let pending;
  let via;
  const x5c = Array.isArray(jwk.x5c) && jwk.x5c.length > 0 ? jwk.x5c : void 0;
  if (x5c !== void 0 && (ctx.forms.has("x5c") || ctx.forms.has("aia") && x5c.length === 1)) {
    if (x5c.length > ctx.maxChainLength) return failure("too-long", `x5c holds ${x5c.length} certificates; at most ${ctx.maxChainLength} are accepted`);
    pending = [];
    for (const item2 of x5c) {
      const der = typeof item2 === "string" ? base64Decode(item2) : void 0;
      if (der === void 0) return failure("malformed", "an x5c entry is not base64 DER");
      pending.push(der);
    }
    via = "x5c";
  } else if (typeof jwk.x5u === "string" && ctx.forms.has("x5u")) {
    const fetched = await fetchCertificates(ctx, jwk.x5u, "x5u");
    if (fetched instanceof ChainFailure) return fetched;
    pending = fetched;
    via = "x5u";
  } else if (x5c !== void 0 || typeof jwk.x5u === "string") {
    return failure("no-chain", "the key carries its chain in a form this verifier does not accept (delegation.forms)");
  } else {
    return failure("no-chain", "the key carries no certificate chain (x5c or x5u)");
  }
  const links = [];
  let anchor;
  let current = parseCertificate(asn, pending[0]);
  if (current instanceof ChainFailure) return failure("malformed", `${where2(0)}: ${current.message}`);
  let matches;
  try {
    matches = keyMatches(asn, current.spki, jwk);
  } catch {
    matches = false;
  }
  if (!matches) return failure("wrong-key", "the leaf certificate certifies another key than the directory entry (SPEC 5.5 rule 4)");
  let next = 1;
  for (; ; ) {
    const position = links.length;
    const pinned = index.byDer.get(base64Encode(current.der));
    if (pinned !== void 0) {
      anchor = pinned;
      break;
    }
    if (current.unknownCritical !== void 0) {
      return failure("unsupported", `${where2(position)} has a critical extension this verifier does not process (${current.unknownCritical})`);
    }
    const invalid5 = checkValidity(current, position, ctx);
    if (invalid5 !== void 0) return invalid5;
    links.push(current);
    if (links.length >= ctx.maxChainLength) return failure("too-long", `the chain needs more than ${ctx.maxChainLength} certificates`);
    let issuer;
    if (next < pending.length) {
      issuer = parseCertificate(asn, pending[next]);
      if (issuer instanceof ChainFailure) return failure("malformed", `${where2(position + 1)}: ${issuer.message}`);
      next++;
    } else {
      const candidates = index.bySubject.get(current.issuerKey);
      if (candidates !== void 0) {
        for (const candidate of candidates) {
          const check3 = await signedBy(asn, current, candidate);
          if (check3 instanceof ChainFailure) return check3;
          if (check3 === "valid") {
            anchor = candidate;
            break;
          }
        }
        if (anchor !== void 0) break;
        return failure("broken-chain", `${where2(position)} names a trust anchor as its issuer but is not signed by it`);
      }
      if (current.selfIssued) return failure("untrusted-root", "the chain ends at a self-issued certificate that is not a trust anchor");
      if (!ctx.forms.has("aia")) return failure("untrusted-root", `the issuer of ${where2(position)} is not a trust anchor`);
      const url = caIssuersUrl(current);
      if (url === void 0) {
        return failure(
          "missing-aia",
          `the issuer of ${where2(position)} is not a trust anchor and the certificate names no CA Issuers URI (AIA) to fetch it from`
        );
      }
      const fetched = await fetchCertificates(ctx, url, "aia");
      if (fetched instanceof ChainFailure) return fetched;
      issuer = parseCertificate(asn, fetched[0]);
      if (issuer instanceof ChainFailure) return failure("malformed", `the certificate from the CA Issuers URI: ${issuer.message}`);
      via = "aia";
    }
    if (current.issuerKey !== issuer.subjectKey) return failure("broken-chain", `${where2(position)} is not issued by the next certificate (names differ)`);
    const check2 = await signedBy(asn, current, issuer);
    if (check2 instanceof ChainFailure) return check2;
    if (check2 === "invalid") return failure("broken-chain", `${where2(position)} is not signed by the next certificate`);
    current = issuer;
  }
  const anchorInvalid = checkValidity(anchor, links.length, ctx);
  if (anchorInvalid !== void 0) return failure(anchorInvalid.reason, `${anchorInvalid.message} (the trust anchor)`);
  if (links.length > 0) {
    const bc = anchor.basicConstraints;
    if (bc !== void 0 && !bc.cA) return failure("not-a-ca", "the trust anchor is not a CA (basic constraints) yet issues the chain");
    if (anchor.keyUsage !== void 0 && (anchor.keyUsage & KEY_USAGE_KEY_CERT_SIGN) === 0) {
      return failure("key-usage", "the trust anchor may not sign certificates (key usage lacks keyCertSign)");
    }
    if (bc?.pathLen !== void 0 && intermediatesBelow(links, links.length) > bc.pathLen) {
      return failure("path-length", "the chain is longer than the trust anchor allows (pathLenConstraint)");
    }
  }
  for (let i = 1; i < links.length; i++) {
    const cert = links[i];
    const bc = cert.basicConstraints;
    if (bc === void 0 || !bc.cA) return failure("not-a-ca", `${where2(i)} issues a certificate but is not a CA (basic constraints, RFC 5280 \xA74.2.1.9)`);
    if (cert.keyUsage !== void 0 && (cert.keyUsage & KEY_USAGE_KEY_CERT_SIGN) === 0) {
      return failure("key-usage", `${where2(i)} may not sign certificates (key usage lacks keyCertSign, RFC 5280 \xA74.2.1.3)`);
    }
    if (bc.pathLen !== void 0 && intermediatesBelow(links, i) > bc.pathLen) {
      return failure("path-length", `the chain below ${where2(i)} is longer than its pathLenConstraint allows`);
    }
  }
  const leaf = links[0] ?? anchor;
  if (leaf.keyUsage !== void 0 && (leaf.keyUsage & KEY_USAGE_DIGITAL_SIGNATURE) === 0) {
    return failure("key-usage", "the leaf certificate may not sign (key usage lacks digitalSignature)");
  }
  const all = [...links, anchor];
  let notBefore = Number.NEGATIVE_INFINITY;
  let notAfter = Number.POSITIVE_INFINITY;
  for (const c of all) {
    notBefore = Math.max(notBefore, c.notBeforeMs);
    notAfter = Math.min(notAfter, c.notAfterMs);
  }
  const { subject, subjectSource } = identityOf(leaf);
  return Object.freeze({
    chain: Object.freeze(all.map((c) => c.subject)),
    anchor: anchor.subject,
    via,
    subject,
    subjectSource,
    notBefore: Math.ceil(notBefore / 1e3),
    notAfter: Math.floor(notAfter / 1e3)
  });
}
function intermediatesBelow(links, i) {
  let n = 0;
  for (let j = 1; j < i; j++) if (!links[j].selfIssued) n++;
  return n;
}
function isDnsName(name) {
  if (name.length === 0 || name.length > 253) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i) | 32;
    const ok = c >= 97 && c <= 122 || name.charCodeAt(i) >= 48 && name.charCodeAt(i) <= 57 || name[i] === "-" || name[i] === ".";
    if (!ok) return false;
  }
  return true;
}
function identityOf(leaf) {
  for (const uri of leaf.sanUris) {
    const parsed = tryParseUrl(uri);
    if (parsed !== void 0 && (parsed.protocol === "https:" || parsed.protocol === "http:") && parsed.username === "" && parsed.password === "") {
      try {
        return { subject: normalizeUrl(uri), subjectSource: "san-uri" };
      } catch {
      }
    }
  }
  for (const dns of leaf.sanDns) {
    if (isDnsName(dns)) return { subject: dns.toLowerCase(), subjectSource: "san-dns" };
  }
  return { subject: leaf.subject, subjectSource: "subject-dn" };
}
var init_path = __esm({
  "../head/src/directory/delegation/path.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_time();
    init_url();
    init_anchors();
    init_certificate();
    init_der();
    init_failure();
    init_signatures();
    init_types2();
  }
});

// ../head/src/directory/delegation.ts
var init_delegation = __esm({
  "../head/src/directory/delegation.ts"() {
    "use strict";
    init_options2();
    init_path();
  }
});

// ../head/src/httpsig/verify.ts
async function verifySignatureBytes(key, base, signature, alg) {
  if (typeof key !== "object" || key === null || typeof key.verify !== "function") throw new TypeError("key must be a VerifyingKey");
  let bound = key;
  if (key.alg !== void 0) {
    keyAlgorithm(key.alg);
    if (alg !== void 0 && alg !== key.alg) throw new BotsigError("ERR_ALG_MISMATCH", "the alg parameter does not match the key");
  } else {
    const b = keyForAlgorithm(key, alg === void 0 ? void 0 : toAlgorithmName(alg));
    if (b instanceof BotsigError) throw b;
    bound = b;
  }
  try {
    return await verifyBase(bound, base, signature) === true;
  } catch (err) {
    if (isBotsigError(err)) throw err;
    return false;
  }
}
async function verifyEntry(message, entry, options) {
  if (!entry.ok) throw entry.error;
  const { input, signature } = entry;
  const params = signatureParams(input.params);
  const alg = params.alg === void 0 ? void 0 : toAlgorithmName(params.alg);
  let found = options.key;
  if (found === void 0) {
    found = await options.keyLookup(input);
    if (found === void 0) throw new BotsigError("ERR_KEY_UNKNOWN", `no key for signature ${entry.label}`);
  }
  if (typeof found !== "object" || found === null || typeof found.verify !== "function") throw new TypeError("key must be a VerifyingKey");
  if (found.alg !== void 0) keyAlgorithm(found.alg);
  const key = keyForAlgorithm(found, alg);
  if (key instanceof BotsigError) {
    if (key.code === "ERR_ALG_MISMATCH") throw new BotsigError("ERR_ALG_MISMATCH", `signature ${entry.label} names an alg that does not match the key`);
    throw key;
  }
  if (options.algorithms !== void 0 && !options.algorithms.includes(key.alg)) {
    throw new BotsigError("ERR_ALG_NOT_ALLOWED", `the key algorithm of signature ${entry.label} is not allowed`);
  }
  const base = createSignatureBase(message, input, options);
  if (!await verifySignatureBytes(key, base, signature)) {
    throw new BotsigError("ERR_SIGNATURE_INVALID", `signature ${entry.label} does not verify`);
  }
  return { label: entry.label, input, base, params, key };
}
async function verifyMessage(message, options) {
  if (typeof options !== "object" || options === null) throw new TypeError("verifyMessage needs options");
  if (options.key === void 0 && typeof options.keyLookup !== "function") throw new TypeError("verifyMessage needs options.key or options.keyLookup");
  const algorithms = options.algorithms;
  if (algorithms !== void 0 && (!Array.isArray(algorithms) || !algorithms.every(isAlgorithmName))) {
    throw new TypeError("options.algorithms must list RFC 9421 asymmetric algorithm names");
  }
  const msg = toHttpMessage(message, options.request === void 0 ? void 0 : { request: options.request });
  const entries = readSignatures(msg);
  if (options.label !== void 0) {
    const entry = entries.get(options.label);
    if (entry === void 0) throw new BotsigError("ERR_LABEL_MISSING", `no signature labelled ${options.label}`);
    return verifyEntry(msg, entry, options);
  }
  if (entries.size === 0) throw new BotsigError("ERR_NO_SIGNATURE", "the message has no Signature-Input or Signature field");
  let first;
  for (const entry of entries.values()) {
    try {
      return await verifyEntry(msg, entry, options);
    } catch (err) {
      if (!isBotsigError(err)) throw err;
      first ??= err;
    }
  }
  throw first;
}
var init_verify = __esm({
  "../head/src/httpsig/verify.ts"() {
    "use strict";
    init_errors();
    init_keys();
    init_registry();
    init_base2();
    init_message();
    init_signature_input();
  }
});

// ../head/src/directory/response-signatures.ts
function header(message, name) {
  const lines = message.headers.get(name);
  return lines === void 0 || lines.length === 0 ? void 0 : lines.join(", ");
}
async function verifyDirectoryResponse(response, options) {
  if (typeof response !== "object" || response === null || typeof response.url !== "string" || typeof response.status !== "number") {
    throw new TypeError("response must be { url, status, headers, body }");
  }
  if (typeof options !== "object" || options === null || !(options.keys instanceof Map))
    throw new TypeError("options.keys must be a Map of thumbprint to VerifyingKey");
  const skew = options.clockSkewSeconds ?? 60;
  if (typeof skew !== "number" || !(skew >= 0)) throw new TypeError("clockSkewSeconds must be a non-negative number");
  const nowSeconds = (options.now ?? systemClock)() / 1e3;
  const maxSignatures = options.maxSignatures ?? options.keys.size * 2 + 8;
  const diagnostics = [];
  const proofs = /* @__PURE__ */ new Map();
  const message = toHttpMessage({ status: response.status, headers: response.headers }, { request: { method: "GET", url: response.url, headers: {} } });
  const inputHeader = header(message, "signature-input");
  const signatureHeader = header(message, "signature");
  const digestHeader = header(message, "content-digest");
  let digestValid;
  if (digestHeader !== void 0) {
    try {
      await verifyContentDigest(digestHeader, response.body);
      digestValid = true;
    } catch (error) {
      if (!isBotsigError(error)) throw error;
      digestValid = false;
      const mismatch = error.code === "ERR_DIGEST_MISMATCH";
      diagnostics.push({
        level: "error",
        code: mismatch ? "content-digest-mismatch" : "content-digest-invalid",
        message: mismatch ? "Content-Digest does not match the response body (RFC 9530)" : "Content-Digest is malformed or names no supported algorithm (RFC 9530)"
      });
    }
  }
  if (inputHeader === void 0 && signatureHeader === void 0) {
    diagnostics.push({ level: "warning", code: "response-unsigned", message: "the directory response carries no signatures (SPEC 5.4)" });
    return { proofs, digestValid, diagnostics };
  }
  if (digestHeader === void 0) {
    diagnostics.push({ level: "warning", code: "content-digest-missing", message: "the signed directory response has no Content-Digest (SPEC 5.4)" });
  }
  let inputs;
  let signatures;
  try {
    inputs = parseSignatureInput(inputHeader ?? "");
    signatures = parseSignature(signatureHeader ?? "");
  } catch (error) {
    if (!isBotsigError(error)) throw error;
    diagnostics.push({
      level: "error",
      code: "response-signature-malformed",
      message: "Signature or Signature-Input of the directory response does not parse (RFC 9421 \xA74)"
    });
    return { proofs, digestValid, diagnostics };
  }
  let examined = 0;
  for (const [label, input] of inputs) {
    const at = `signature ${label}`;
    const fail4 = (code, text) => {
      diagnostics.push({ level: "error", code, message: text, at });
    };
    if (examined >= maxSignatures) {
      fail4("response-signatures-too-many", `more than ${maxSignatures} signatures; the rest are ignored`);
      break;
    }
    examined++;
    const signature = signatures.get(label);
    if (signature === void 0) {
      fail4("response-signature-malformed", "label is in Signature-Input but not in Signature");
      continue;
    }
    let params;
    try {
      params = signatureParams(input.params);
    } catch {
      fail4("response-signature-params", "a signature parameter has the wrong type (RFC 9421 \xA72.3)");
      continue;
    }
    if (params.tag !== DIRECTORY_RESPONSE_TAG) {
      diagnostics.push({ level: "warning", code: "response-signature-tag", message: `not tagged ${DIRECTORY_RESPONSE_TAG}; skipped`, at });
      continue;
    }
    const key = params.keyid === void 0 ? void 0 : options.keys.get(params.keyid);
    if (key === void 0) {
      fail4("response-signature-unknown-key", "keyid is not the thumbprint of a key in this directory (SPEC 5.4)");
      continue;
    }
    const covered = new Set(input.components.map(serializeComponentIdentifier));
    let coversRequired = true;
    for (const c of REQUIRED2) if (!covered.has(c)) coversRequired = false;
    if (!coversRequired) {
      fail4("response-signature-components", 'does not cover "@authority";req and "content-digest" (SPEC 5.4)');
      continue;
    }
    if (digestValid !== true) {
      fail4("content-digest-mismatch", "covers Content-Digest, which is missing or does not match the body");
      continue;
    }
    if (params.created === void 0) {
      fail4("response-signature-created-missing", "has no created parameter; it could be replayed forever");
      continue;
    }
    if (params.created > nowSeconds + skew) {
      fail4("response-signature-created-future", "was created in the future");
      continue;
    }
    if (params.expires !== void 0 && (params.expires < nowSeconds - skew || params.expires < params.created)) {
      fail4("response-signature-expired", "has expired");
      continue;
    }
    const prior = proofs.get(key.thumbprint);
    if (prior !== void 0 && prior.created >= params.created) continue;
    let ok;
    try {
      const base = createSignatureBase(message, input);
      ok = await verifySignatureBytes(key, base, signature, params.alg);
    } catch (error) {
      if (!isBotsigError(error)) throw error;
      if (error.code.startsWith("ERR_ALG_")) fail4("response-signature-alg", error.code === "ERR_ALG_MISMATCH" ? "alg does not match the key" : error.message);
      else fail4("response-signature-invalid", "the signature base cannot be built (RFC 9421 \xA72.5)");
      continue;
    }
    if (!ok) {
      fail4("response-signature-invalid", "does not verify with the key it names");
      continue;
    }
    proofs.set(key.thumbprint, { label, created: params.created, ...params.expires === void 0 ? {} : { expires: params.expires } });
  }
  return { proofs, digestValid, diagnostics };
}
var DIRECTORY_RESPONSE_TAG, DIRECTORY_RESPONSE_COMPONENTS, REQUIRED2;
var init_response_signatures = __esm({
  "../head/src/directory/response-signatures.ts"() {
    "use strict";
    init_errors();
    init_time();
    init_digest();
    init_base2();
    init_components();
    init_message();
    init_signature_input();
    init_verify();
    DIRECTORY_RESPONSE_TAG = "http-message-signatures-directory";
    DIRECTORY_RESPONSE_COMPONENTS = Object.freeze(['"@authority";req', '"content-digest"']);
    REQUIRED2 = new Set(DIRECTORY_RESPONSE_COMPONENTS);
  }
});

// ../head/src/directory/client/delegate.ts
async function delegateKey(ctx, jwk, budget) {
  const d = ctx.s.delegation;
  const fetch = (url, purpose) => {
    if (!budget.has(url)) {
      if (budget.size >= MAX_CERTIFICATE_URLS_PER_DIRECTORY) {
        return Promise.reject(
          fail3("ERR_DIRECTORY_FETCH", `the directory needs more than ${MAX_CERTIFICATE_URLS_PER_DIRECTORY} certificate URLs; no more are fetched`)
        );
      }
      budget.add(url);
    }
    return ctx.fetchCertificate(url, purpose);
  };
  try {
    return await verifyDelegation(jwk, {
      anchors: d.anchors,
      forms: d.forms,
      maxChainLength: d.maxChainLength,
      now: ctx.s.now,
      clockSkewSeconds: ctx.s.skewSeconds,
      fetch
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : "unknown error";
    return { ok: false, reason: "unavailable", error: new BotsigError("ERR_DELEGATION_INVALID", `delegation is misconfigured: ${message}`, { cause: error }) };
  }
}
var MAX_CERTIFICATE_URLS_PER_DIRECTORY;
var init_delegate = __esm({
  "../head/src/directory/client/delegate.ts"() {
    "use strict";
    init_errors();
    init_delegation();
    init_fail();
    MAX_CERTIFICATE_URLS_PER_DIRECTORY = 8;
  }
});

// ../head/src/directory/client/keys.ts
async function finish3(ctx, state, entry, parsedKeys, diagnostics) {
  const imported = [];
  for (const dk of parsedKeys) {
    const id = `${dk.alg ?? ""} ${dk.thumbprint}`;
    let pending = state.imported.get(id);
    if (pending === void 0) {
      pending = importVerifyingKey(dk.jwk, dk.alg === void 0 ? void 0 : { alg: dk.alg });
      state.imported.set(id, pending);
      pending.catch(() => state.imported.delete(id));
    }
    try {
      imported.push({ dk, key: await pending });
    } catch (error) {
      diagnostics.push({
        level: "error",
        code: "key-import-failed",
        message: `the key cannot be imported (${isBotsigError(error) ? error.code : "ERR_KEY_INVALID"})`,
        at: `keys[${dk.index}]`
      });
    }
  }
  if (state.imported.size > imported.length * 2 + 8) {
    const keep = new Set(imported.map(({ dk }) => `${dk.alg ?? ""} ${dk.thumbprint}`));
    for (const id of state.imported.keys()) if (!keep.has(id)) state.imported.delete(id);
  }
  let proofs = /* @__PURE__ */ new Map();
  if (imported.length > 0) {
    const check2 = await verifyDirectoryResponse(
      { url: entry.url, status: 200, headers: entry.headers, body: utf8Encoder.encode(entry.body) },
      { keys: new Map(imported.map(({ key }) => [key.thumbprint, key])), now: ctx.s.now, clockSkewSeconds: ctx.s.skewSeconds }
    );
    proofs = check2.proofs;
    for (const d of check2.diagnostics) diagnostics.push(d);
  }
  const kept = [];
  for (const { dk, key } of imported) {
    const proof = proofs.get(key.thumbprint);
    if (proof === void 0 && ctx.s.requireProof) {
      diagnostics.push({
        level: "error",
        code: "key-unproven",
        message: "no valid directory response signature proves this key; left out (requireProof, SPEC 5.4)",
        at: `keys[${dk.index}]`
      });
      continue;
    }
    kept.push({ dk, key, proof });
  }
  const delegation = ctx.s.delegation;
  const budget = /* @__PURE__ */ new Set();
  const outcomes = delegation === void 0 ? void 0 : await Promise.all(kept.map(({ dk }) => hasCertificateChain(dk.jwk) ? delegateKey(ctx, dk.jwk, budget) : void 0));
  const keys = [];
  let proofExpiryMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < kept.length; i++) {
    const { dk, key, proof } = kept[i];
    const at = `keys[${dk.index}]`;
    const base = Object.freeze({
      thumbprint: key.thumbprint,
      key,
      proof: proof === void 0 ? "unsigned" : "signed",
      ...proof === void 0 ? {} : { signedAt: proof.created },
      ...dk.nbf === void 0 ? {} : { nbf: dk.nbf },
      ...dk.exp === void 0 ? {} : { exp: dk.exp }
    });
    const outcome = outcomes?.[i];
    if (outcomes !== void 0 && ctx.s.requireDelegation && (outcome === void 0 || !outcome.ok)) {
      diagnostics.push({
        level: "error",
        code: outcome === void 0 ? "delegation-no-chain" : `delegation-${outcome.reason}`,
        message: `${outcome === void 0 ? "the key carries no certificate chain (x5c or x5u)" : outcome.error.message}; left out (requireDelegation, SPEC 5.5)`,
        at
      });
      continue;
    }
    if (proof?.expires !== void 0) proofExpiryMs = Math.min(proofExpiryMs, proof.expires * 1e3);
    if (outcome === void 0) {
      keys.push({ key: base, at });
    } else if (outcome.ok) {
      const d = outcome.delegation;
      const delegated = Object.freeze({ ...base, proof: "delegated", chain: d.chain, delegation: d });
      keys.push({
        key: delegated,
        at,
        window: { fromS: d.notBefore, untilS: d.notAfter },
        ...ctx.s.requireDelegation ? {} : { fallback: base }
      });
    } else {
      diagnostics.push({
        level: "warning",
        code: `delegation-${outcome.reason}`,
        message: `${outcome.error.message}; the key is kept with its directory proof (set requireDelegation to leave such keys out)`,
        at
      });
      keys.push({ key: base, at });
    }
  }
  return finishBuilt(entry, keys, diagnostics, Math.min(entry.freshUntilMs, proofExpiryMs), newestOf(keys));
}
function finishBuilt(entry, keys, diagnostics, freshUntilMs, newestProof, staleKeys = false) {
  return {
    staleKeys,
    entry,
    keys,
    diagnostics: diagnostics.length === 0 ? EMPTY_DIAGNOSTICS : Object.freeze(diagnostics),
    freshUntilMs,
    newestProof
  };
}
function newestOf(keys) {
  let newest;
  for (const { key } of keys) if (key.signedAt !== void 0 && (newest === void 0 || key.signedAt > newest)) newest = key.signedAt;
  return newest;
}
var utf8Encoder, EMPTY_DIAGNOSTICS;
var init_keys2 = __esm({
  "../head/src/directory/client/keys.ts"() {
    "use strict";
    init_errors();
    init_keys();
    init_delegation();
    init_response_signatures();
    init_delegate();
    utf8Encoder = new TextEncoder();
    EMPTY_DIAGNOSTICS = Object.freeze([]);
  }
});

// ../head/src/core/ip.ts
function digitValue(c, radix) {
  let v;
  if (c >= 48 && c <= 57) v = c - 48;
  else if (radix === 16 && (c | 32) >= 97 && (c | 32) <= 102) v = (c | 32) - 87;
  else return -1;
  return v < radix ? v : -1;
}
function ipv4Part(text, start, end) {
  if (start >= end) return -1;
  let radix = 10;
  let i = start;
  if (end - start >= 2 && text.charCodeAt(i) === 48 && (text.charCodeAt(i + 1) | 32) === 120) {
    radix = 16;
    i += 2;
    if (i === end) return 0;
  } else if (end - start >= 2 && text.charCodeAt(i) === 48) {
    radix = 8;
    i += 1;
  }
  let value = 0;
  for (; i < end; i++) {
    const d = digitValue(text.charCodeAt(i), radix);
    if (d < 0) return -1;
    value = value * radix + d;
    if (value > 4294967295) return -1;
  }
  return value;
}
function parseIpv4(text) {
  if (typeof text !== "string") return void 0;
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 46) end--;
  if (end === 0 || end > 64) return void 0;
  const parts = [];
  let from = 0;
  for (let i = 0; i <= end; i++) {
    if (i === end || text.charCodeAt(i) === 46) {
      if (parts.length === 4) return void 0;
      const v = ipv4Part(text, from, i);
      if (v < 0) return void 0;
      parts.push(v);
      from = i + 1;
    }
  }
  const last = parts.length - 1;
  let address = 0;
  for (let i = 0; i < last; i++) {
    if (parts[i] > 255) return void 0;
    address = address * 256 + parts[i];
  }
  const room = 4 - last;
  if (parts[last] >= 256 ** room) return void 0;
  return address * 256 ** room + parts[last];
}
function formatIpv4(address) {
  return `${address >>> 24 & 255}.${address >>> 16 & 255}.${address >>> 8 & 255}.${address & 255}`;
}
function inV4(address, base, bits) {
  const size = 2 ** (32 - bits);
  return address >= base && address < base + size;
}
function classifyIpv4(address) {
  if (address === 0) return "unspecified";
  if (address === 4294967295) return "broadcast";
  const first = address >>> 24;
  switch (first) {
    case 0:
      return "this-network";
    case 10:
      return "private";
    case 127:
      return "loopback";
  }
  if (first >= 224) return first < 240 ? "multicast" : "reserved";
  if (inV4(address, V4(100, 64, 0, 0), 10)) return "cgnat";
  if (inV4(address, V4(169, 254, 0, 0), 16)) return "link-local";
  if (inV4(address, V4(172, 16, 0, 0), 12)) return "private";
  if (inV4(address, V4(192, 168, 0, 0), 16)) return "private";
  if (inV4(address, V4(192, 0, 0, 0), 24)) return "ietf-protocol";
  if (inV4(address, V4(192, 0, 2, 0), 24)) return "documentation";
  if (inV4(address, V4(198, 51, 100, 0), 24)) return "documentation";
  if (inV4(address, V4(203, 0, 113, 0), 24)) return "documentation";
  if (inV4(address, V4(198, 18, 0, 0), 15)) return "benchmarking";
  if (inV4(address, V4(192, 88, 99, 0), 24)) return "reserved";
  return "public";
}
function parseIpv6(text) {
  if (typeof text !== "string") return void 0;
  let start = 0;
  let end = text.length;
  if (end >= 2 && text.charCodeAt(0) === 91 && text.charCodeAt(end - 1) === 93) {
    start = 1;
    end -= 1;
  }
  const zone = text.indexOf("%", start);
  if (zone >= 0 && zone < end) end = zone;
  if (end - start < 2 || end - start > 45) return void 0;
  const head = [];
  const tail = [];
  let compressed = false;
  let i = start;
  if (text.charCodeAt(i) === 58) {
    if (text.charCodeAt(i + 1) !== 58) return void 0;
    compressed = true;
    i += 2;
    if (i === end) return [0, 0, 0, 0, 0, 0, 0, 0];
  }
  for (; ; ) {
    const groups = compressed ? tail : head;
    let j = i;
    while (j < end && text.charCodeAt(j) !== 58 && text.charCodeAt(j) !== 46) j++;
    if (j < end && text.charCodeAt(j) === 46) {
      const v4 = parseDottedQuad(text, i, end);
      if (v4 === void 0) return void 0;
      groups.push(Math.floor(v4 / 65536), v4 % 65536);
      i = end;
    } else {
      if (j === i || j - i > 4) return void 0;
      let v = 0;
      for (let k = i; k < j; k++) {
        const d = digitValue(text.charCodeAt(k), 16);
        if (d < 0) return void 0;
        v = v * 16 + d;
      }
      groups.push(v);
      i = j;
    }
    if (head.length + tail.length > 8) return void 0;
    if (i === end) break;
    i++;
    if (text.charCodeAt(i) === 58) {
      if (compressed) return void 0;
      compressed = true;
      i++;
      if (i === end) break;
    } else if (i === end) {
      return void 0;
    }
  }
  const count = head.length + tail.length;
  if (compressed ? count > 7 : count !== 8) return void 0;
  const out = head.slice();
  for (let k = count; k < 8; k++) out.push(0);
  for (let k = 0; k < tail.length; k++) out[8 - tail.length + k] = tail[k];
  return out;
}
function parseDottedQuad(text, start, end) {
  let value = 0;
  let parts = 0;
  let from = start;
  for (let i = start; i <= end; i++) {
    if (i < end && text.charCodeAt(i) !== 46) continue;
    const len = i - from;
    if (len === 0 || len > 3 || len > 1 && text.charCodeAt(from) === 48) return void 0;
    let part = 0;
    for (let k = from; k < i; k++) {
      const c = text.charCodeAt(k);
      if (c < 48 || c > 57) return void 0;
      part = part * 10 + (c - 48);
    }
    if (part > 255) return void 0;
    value = value * 256 + part;
    parts++;
    from = i + 1;
  }
  return parts === 4 ? value : void 0;
}
function embedded(groups, at) {
  return groups[at] * 65536 + groups[at + 1];
}
function classifyIpv6(groups) {
  const g = groups;
  const zeroTo = (n) => {
    for (let i = 0; i < n; i++) if (g[i] !== 0) return false;
    return true;
  };
  if (zeroTo(8)) return { version: 6, range: "unspecified" };
  if (zeroTo(7) && g[7] === 1) return { version: 6, range: "loopback" };
  if (zeroTo(5) && g[5] === 65535) {
    const v4 = embedded(g, 6);
    return { version: 6, range: classifyIpv4(v4), embeddedIpv4: formatIpv4(v4) };
  }
  if (zeroTo(6)) return { version: 6, range: "reserved" };
  if (zeroTo(4) && g[4] === 65535 && g[5] === 0) return { version: 6, range: "reserved" };
  const g0 = g[0];
  if (g0 === 100 && g[1] === 65435) {
    if (g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) {
      const v4 = embedded(g, 6);
      return { version: 6, range: classifyIpv4(v4), embeddedIpv4: formatIpv4(v4) };
    }
    return { version: 6, range: "reserved" };
  }
  if (g0 === 8194) {
    const v4 = embedded(g, 1);
    return { version: 6, range: classifyIpv4(v4), embeddedIpv4: formatIpv4(v4) };
  }
  if (g0 === 8193) {
    const g1 = g[1];
    if (g1 === 3512) return { version: 6, range: "documentation" };
    if (g1 === 2 && g[2] === 0) return { version: 6, range: "benchmarking" };
    if (g1 < 512) return { version: 6, range: "ietf-protocol" };
  }
  if (g0 === 16383 && g[1] < 4096) return { version: 6, range: "documentation" };
  if (g0 >= 65280) return { version: 6, range: "multicast" };
  if ((g0 & 65472) === 65152) return { version: 6, range: "link-local" };
  if ((g0 & 65472) === 65216) return { version: 6, range: "site-local" };
  if ((g0 & 65024) === 64512) return { version: 6, range: "unique-local" };
  if (g0 === 24320) return { version: 6, range: "reserved" };
  if ((g0 & 57344) !== 8192) return { version: 6, range: "reserved" };
  return { version: 6, range: "public" };
}
function classifyIp(text) {
  if (typeof text !== "string") return void 0;
  if (text.indexOf(":") >= 0) {
    const groups = parseIpv6(text);
    return groups === void 0 ? void 0 : classifyIpv6(groups);
  }
  const v4 = parseIpv4(text);
  return v4 === void 0 ? void 0 : { version: 4, range: classifyIpv4(v4) };
}
function isRangeAllowed(range, policy) {
  switch (range) {
    case "public":
      return true;
    case "loopback":
      return policy?.loopback === true;
    case "private":
    case "cgnat":
    case "unique-local":
    case "site-local":
      return policy?.privateNetworks === true;
    default:
      return false;
  }
}
function isAddressAllowed(address, policy) {
  const info = classifyIp(address);
  return info !== void 0 && isRangeAllowed(info.range, policy);
}
function endsWithLabel(name, suffix) {
  return name === suffix || name.length > suffix.length && name.endsWith(suffix) && name.charCodeAt(name.length - suffix.length - 1) === 46;
}
function classifyHost(hostname) {
  if (typeof hostname !== "string") throw new TypeError("hostname must be a string");
  let name = hostname.toLowerCase();
  if (name.endsWith(".")) name = name.slice(0, -1);
  const ip = classifyIp(name);
  if (ip !== void 0) return { kind: "ip", ip };
  if (endsWithLabel(name, "localhost")) return { kind: "name", special: "localhost" };
  if (endsWithLabel(name, "local") || endsWithLabel(name, "internal") || endsWithLabel(name, "home.arpa")) {
    return { kind: "name", special: "local-domain" };
  }
  if (name.indexOf(".") < 0) return { kind: "name", special: "single-label" };
  return { kind: "name" };
}
function isHostAllowed(hostname, policy) {
  const info = classifyHost(hostname);
  if (info.kind === "ip") return isRangeAllowed(info.ip.range, policy);
  switch (info.special) {
    case void 0:
      return true;
    case "localhost":
      return policy?.loopback === true;
    default:
      return policy?.privateNetworks === true;
  }
}
var V4;
var init_ip = __esm({
  "../head/src/core/ip.ts"() {
    "use strict";
    V4 = (a, b, c, d) => ((a * 256 + b) * 256 + c) * 256 + d;
  }
});

// ../head/src/directory/client/url-guard.ts
function targetFor(s, member) {
  try {
    const url = directoryUrlFor(member);
    const identifier = agentIdentifier(member);
    if (url === void 0 || identifier === void 0) throw fail3("ERR_URL_INVALID", "Signature-Agent value is not a fetchable URL");
    checkUrl2(s, url);
    return { url, identifier };
  } catch (error) {
    if (!isBotsigError(error)) throw error;
    return { error };
  }
}
function checkUrl2(s, url, allowHttp = s.allowHttp) {
  const parsed = tryParseUrl(url);
  if (parsed === void 0) throw fail3("ERR_URL_INVALID", "not an absolute URL");
  if (parsed.protocol !== "https:") {
    if (parsed.protocol !== "http:") throw fail3("ERR_URL_INVALID", "only https (and, when allowed, http) URLs can be fetched");
    if (!allowHttp) throw fail3("ERR_URL_BLOCKED", "http URLs are refused; set allow.http for local use");
  }
  if (parsed.username !== "" || parsed.password !== "") throw fail3("ERR_URL_INVALID", "URLs with userinfo are refused");
  let host = parsed.hostname;
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host === "") throw fail3("ERR_URL_INVALID", "URL has no host");
  const listed = s.hosts.has(host);
  if (!listed && !isHostAllowed(host, s.policy)) {
    throw fail3("ERR_URL_BLOCKED", "the host is a loopback, private, link-local or reserved address or a local-only name; see the allow option");
  }
  if (parsed.port !== "" && !listed && !s.ports.has(Number(parsed.port)) && !(s.policy.loopback && isLoopbackHost(host))) {
    throw fail3("ERR_URL_BLOCKED", `port ${parsed.port} is not fetched; see allow.ports`);
  }
  return parsed;
}
function hostKey(url) {
  const host = tryParseUrl(url)?.hostname ?? "";
  return host.endsWith(".") ? host.slice(0, -1) : host;
}
function isLoopbackHost(host) {
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
var init_url_guard = __esm({
  "../head/src/directory/client/url-guard.ts"() {
    "use strict";
    init_errors();
    init_ip();
    init_url();
    init_signature_agent();
    init_fail();
  }
});

// ../head/src/directory/client/card.ts
async function buildCard(ctx, state, entry, diagnostics) {
  let card;
  try {
    card = JSON.parse(entry.body.charCodeAt(0) === 65279 ? entry.body.slice(1) : entry.body);
  } catch (error) {
    throw fail3("ERR_DIRECTORY_INVALID", "the Signature Agent Card is not JSON", error);
  }
  if (!isPlainObject2(card)) throw fail3("ERR_DIRECTORY_INVALID", "the Signature Agent Card is not a JSON object");
  const clientId = own3(card, "client_id");
  if (typeof clientId !== "string") throw fail3("ERR_DIRECTORY_INVALID", "the Signature Agent Card has no client_id");
  if (clientId !== state.url) {
    let same = false;
    try {
      same = normalizeUrl(clientId) === normalizeUrl(state.url);
    } catch {
      same = false;
    }
    if (!same) throw fail3("ERR_DIRECTORY_INVALID", "the client_id of the Signature Agent Card is not the URL it was fetched from");
    diagnostics.push({ level: "warning", code: "client-id-normalized", message: "client_id equals the card URL only after RFC 3986 normalisation" });
  }
  const jwks = own3(card, "jwks");
  const jwksUri = own3(card, "jwks_uri");
  if (jwks !== void 0 && jwksUri !== void 0) throw fail3("ERR_DIRECTORY_INVALID", "the Signature Agent Card has both jwks and jwks_uri");
  if (jwks !== void 0) {
    if (!isPlainObject2(jwks)) throw fail3("ERR_DIRECTORY_INVALID", "the jwks of the Signature Agent Card is not a JWK Set");
    const parsed = parseDirectorySync(jwks, { source: "cimd", maxKeys: ctx.s.maxKeys });
    for (const d of parsed.diagnostics) diagnostics.push(d);
    return finish3(ctx, state, entry, parsed.keys, diagnostics);
  }
  if (typeof jwksUri !== "string") throw fail3("ERR_DIRECTORY_INVALID", "the Signature Agent Card has neither jwks nor jwks_uri");
  const parsedUri = tryParseUrl(jwksUri);
  if (parsedUri === void 0) throw fail3("ERR_URL_INVALID", "the jwks_uri of the Signature Agent Card is not an absolute URL");
  parsedUri.hash = "";
  const url = checkUrl2(ctx.s, parsedUri.href).href;
  const { resolution, validUntilMs } = await ctx.resolveJwks(url, normalizeUrl(stripUrlSuffix(url, false)));
  for (const d of resolution.diagnostics) diagnostics.push({ ...d, at: d.at === void 0 ? "jwks_uri" : `jwks_uri ${d.at}` });
  const keys = resolution.keys.map((key) => ({ key, at: `jwks_uri ${key.thumbprint}` }));
  return finishBuilt(entry, keys, diagnostics, Math.min(entry.freshUntilMs, validUntilMs), newestOf(keys), resolution.stale);
}
function isPlainObject2(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function own3(o, name) {
  return Object.prototype.hasOwnProperty.call(o, name) ? o[name] : void 0;
}
var init_card = __esm({
  "../head/src/directory/client/card.ts"() {
    "use strict";
    init_url();
    init_document();
    init_fail();
    init_keys2();
    init_url_guard();
  }
});

// ../head/src/directory/client/build.ts
async function build(ctx, state, entry, extra) {
  const diagnostics = extra === void 0 ? [] : [...extra];
  const kind = directoryMediaTypeKind(entry.headers["content-type"]);
  if (state.kind === "directory" && (kind === "json" || kind === "jwk-set")) {
    diagnostics.push({
      level: "warning",
      code: "content-type-generic",
      message: "the directory is served with a generic JSON media type instead of application/http-message-signatures-directory+json (SPEC 2.1 rule 5)"
    });
  }
  if (state.kind === "cimd") return buildCard(ctx, state, entry, diagnostics);
  const source = state.kind === "directory" ? "well-known" : "jwks_uri";
  const parsed = parseDirectorySync(entry.body, { source, maxKeys: ctx.s.maxKeys, url: entry.url });
  for (const d of parsed.diagnostics) diagnostics.push(d);
  return finish3(ctx, state, entry, parsed.keys, diagnostics);
}
var init_build = __esm({
  "../head/src/directory/client/build.ts"() {
    "use strict";
    init_document();
    init_card();
    init_keys2();
  }
});

// ../head/src/directory/http-cache.ts
function isSpace(c) {
  return c === 32 || c === 9;
}
function parseDeltaSeconds(text) {
  if (text.length === 0) return void 0;
  let v = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return void 0;
    if (v < DELTA_SECONDS_MAX) v = v * 10 + (c - 48);
  }
  return v > DELTA_SECONDS_MAX ? DELTA_SECONDS_MAX : v;
}
function parseCacheControl(value) {
  if (typeof value !== "string" || value.length === 0) return EMPTY_CACHE_CONTROL;
  let maxAge;
  let maxAgeConflict = false;
  let sMaxAge;
  let noStore = false;
  let noCache = false;
  let mustRevalidate = false;
  let isPrivate = false;
  let isPublic = false;
  let immutable = false;
  const n = value.length;
  let i = 0;
  while (i < n) {
    while (i < n && (isSpace(value.charCodeAt(i)) || value.charCodeAt(i) === 44)) i++;
    if (i >= n) break;
    const nameStart = i;
    while (i < n) {
      const c = value.charCodeAt(i);
      if (c === 61 || c === 44 || isSpace(c)) break;
      i++;
    }
    const name = value.slice(nameStart, i).toLowerCase();
    while (i < n && isSpace(value.charCodeAt(i))) i++;
    let arg;
    if (i < n && value.charCodeAt(i) === 61) {
      i++;
      while (i < n && isSpace(value.charCodeAt(i))) i++;
      if (i < n && value.charCodeAt(i) === 34) {
        i++;
        let out2 = "";
        while (i < n && value.charCodeAt(i) !== 34) {
          if (value.charCodeAt(i) === 92 && i + 1 < n) i++;
          out2 += value[i];
          i++;
        }
        i++;
        arg = out2;
      } else {
        const argStart = i;
        while (i < n && value.charCodeAt(i) !== 44 && !isSpace(value.charCodeAt(i))) i++;
        arg = value.slice(argStart, i);
      }
    }
    while (i < n && value.charCodeAt(i) !== 44) i++;
    switch (name) {
      case "max-age": {
        const v = arg === void 0 ? void 0 : parseDeltaSeconds(arg);
        if (v === void 0 || maxAge !== void 0 && maxAge !== v) maxAgeConflict = true;
        else maxAge = v;
        break;
      }
      case "s-maxage": {
        const v = arg === void 0 ? void 0 : parseDeltaSeconds(arg);
        if (v !== void 0 && sMaxAge === void 0) sMaxAge = v;
        break;
      }
      case "no-store":
        noStore = true;
        break;
      case "no-cache":
        noCache = true;
        break;
      case "must-revalidate":
        mustRevalidate = true;
        break;
      case "private":
        isPrivate = true;
        break;
      case "public":
        isPublic = true;
        break;
      case "immutable":
        immutable = true;
        break;
    }
  }
  const out = { noStore, noCache, mustRevalidate, private: isPrivate, public: isPublic, immutable };
  if (maxAgeConflict) out.maxAgeSeconds = 0;
  else if (maxAge !== void 0) out.maxAgeSeconds = maxAge;
  if (sMaxAge !== void 0) out.sMaxAgeSeconds = sMaxAge;
  return out;
}
function digits(text, start, count) {
  if (start + count > text.length) return -1;
  let v = 0;
  for (let i = start; i < start + count; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
}
function month(text, start) {
  return MONTHS.indexOf(text.slice(start, start + 3).toLowerCase());
}
function timeOfDay(text, start) {
  const h = digits(text, start, 2);
  const m = digits(text, start + 3, 2);
  const s = digits(text, start + 6, 2);
  if (h < 0 || m < 0 || s < 0 || text[start + 2] !== ":" || text[start + 5] !== ":") return -1;
  if (h > 23 || m > 59 || s > 60) return -1;
  return h * 3600 + m * 60 + Math.min(s, 59);
}
function compose(year, mon, day, seconds2) {
  if (mon < 0 || day < 1 || day > 31 || seconds2 < 0) return void 0;
  const d = /* @__PURE__ */ new Date(0);
  d.setUTCFullYear(year, mon, day);
  if (d.getUTCDate() !== day) return void 0;
  return d.getTime() + seconds2 * 1e3;
}
function parseHttpDate(value) {
  if (typeof value !== "string") return void 0;
  const text = value.trim();
  if (text.length < 24 || text.length > 40) return void 0;
  const comma = text.indexOf(",");
  if (comma === 3 && text.length === 29) {
    if (!DAY_NAMES.includes(text.slice(0, 3).toLowerCase()) || text[4] !== " " || text[7] !== " " || text[11] !== " " || text[16] !== " ") {
      return void 0;
    }
    if (text.slice(25) !== " GMT") return void 0;
    const day = digits(text, 5, 2);
    const year = digits(text, 12, 4);
    if (day < 0 || year < 0) return void 0;
    return compose(year, month(text, 8), day, timeOfDay(text, 17));
  }
  if (comma > 3) {
    if (!LONG_DAY_NAMES.includes(text.slice(0, comma).toLowerCase())) return void 0;
    const p = comma + 2;
    if (text[comma + 1] !== " " || text[p + 2] !== "-" || text[p + 6] !== "-" || text[p + 9] !== " " || text.slice(p + 18) !== " GMT") {
      return void 0;
    }
    const day = digits(text, p, 2);
    const yy = digits(text, p + 7, 2);
    if (day < 0 || yy < 0) return void 0;
    return compose(yy < 70 ? 2e3 + yy : 1900 + yy, month(text, p + 3), day, timeOfDay(text, p + 10));
  }
  if (comma < 0 && text.length === 24) {
    if (!DAY_NAMES.includes(text.slice(0, 3).toLowerCase()) || text[3] !== " " || text[7] !== " " || text[10] !== " " || text[19] !== " ") {
      return void 0;
    }
    const day = text[8] === " " ? digits(text, 9, 1) : digits(text, 8, 2);
    const year = digits(text, 20, 4);
    if (day < 0 || year < 0) return void 0;
    return compose(year, month(text, 4), day, timeOfDay(text, 11));
  }
  return void 0;
}
function computeFreshness(headers, requestTimeMs, responseTimeMs, policy) {
  const cc = parseCacheControl(headers["cache-control"]);
  const dateMs = parseHttpDate(headers.date) ?? responseTimeMs;
  const ageValue = typeof headers.age === "string" ? parseDeltaSeconds(headers.age.trim()) ?? 0 : 0;
  const apparentAge = Math.max(0, (responseTimeMs - dateMs) / 1e3);
  const responseDelay = Math.max(0, (responseTimeMs - requestTimeMs) / 1e3);
  const initialAge = Math.max(apparentAge, ageValue + responseDelay);
  if (cc.noStore) {
    return { storable: false, noCache: true, lifetimeSeconds: 0, initialAgeSeconds: initialAge, freshUntilMs: responseTimeMs, source: "no-store" };
  }
  if (cc.noCache) {
    return { storable: true, noCache: true, lifetimeSeconds: 0, initialAgeSeconds: initialAge, freshUntilMs: responseTimeMs, source: "no-cache" };
  }
  let lifetime;
  let source;
  if (cc.maxAgeSeconds !== void 0) {
    lifetime = cc.maxAgeSeconds;
    source = "max-age";
  } else if (headers.expires !== void 0 && headers.expires !== null) {
    const expires = parseHttpDate(headers.expires);
    lifetime = expires === void 0 ? 0 : Math.max(0, (expires - dateMs) / 1e3);
    source = "expires";
  } else {
    lifetime = policy.defaultTtlSeconds;
    source = "default";
  }
  lifetime = Math.min(policy.maxTtlSeconds, Math.max(policy.minTtlSeconds, lifetime));
  const remaining = Math.min(policy.maxTtlSeconds, Math.max(policy.minTtlSeconds, lifetime - initialAge));
  return {
    storable: true,
    noCache: false,
    lifetimeSeconds: lifetime,
    initialAgeSeconds: initialAge,
    freshUntilMs: responseTimeMs + Math.max(0, remaining) * 1e3,
    source
  };
}
function parseRetryAfter(value, nowMs, dateHeader) {
  if (typeof value !== "string") return void 0;
  const text = value.trim();
  const seconds2 = parseDeltaSeconds(text);
  if (seconds2 !== void 0) return seconds2 * 1e3;
  const at = parseHttpDate(text);
  if (at === void 0) return void 0;
  const reference = parseHttpDate(dateHeader) ?? nowMs;
  return Math.max(0, at - reference);
}
function validatorHeaders(stored) {
  const out = {};
  const etag = stored.etag;
  if (typeof etag === "string" && etag.length > 0) out["if-none-match"] = etag;
  const lastModified = stored["last-modified"];
  if (typeof lastModified === "string" && parseHttpDate(lastModified) !== void 0) out["if-modified-since"] = lastModified;
  return out;
}
var DELTA_SECONDS_MAX, EMPTY_CACHE_CONTROL, MONTHS, DAY_NAMES, LONG_DAY_NAMES;
var init_http_cache = __esm({
  "../head/src/directory/http-cache.ts"() {
    "use strict";
    DELTA_SECONDS_MAX = 2147483648;
    EMPTY_CACHE_CONTROL = Object.freeze({
      noStore: false,
      noCache: false,
      mustRevalidate: false,
      private: false,
      public: false,
      immutable: false
    });
    MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    DAY_NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
    LONG_DAY_NAMES = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
  }
});

// ../head/src/directory/cache.ts
function sizeOf(entry) {
  let n = entry.body.length + entry.url.length;
  for (const name of Object.keys(entry.headers)) n += name.length + (entry.headers[name]?.length ?? 0);
  return n;
}
function checkEntry(entry) {
  if (typeof entry !== "object" || entry === null || entry.v !== 1 || typeof entry.url !== "string" || typeof entry.body !== "string" || typeof entry.headers !== "object" || entry.headers === null || typeof entry.fetchedAtMs !== "number" || typeof entry.requestedAtMs !== "number" || typeof entry.freshUntilMs !== "number") {
    throw new TypeError("not a DirectoryCacheEntry");
  }
}
var CACHED_HEADER_NAMES, DEFAULT_DIRECTORY_CACHE_ENTRIES, DEFAULT_DIRECTORY_CACHE_CHARS, MemoryDirectoryCache;
var init_cache2 = __esm({
  "../head/src/directory/cache.ts"() {
    "use strict";
    CACHED_HEADER_NAMES = [
      "content-type",
      "cache-control",
      "expires",
      "date",
      "age",
      "etag",
      "last-modified",
      "content-digest",
      "signature",
      "signature-input"
    ];
    DEFAULT_DIRECTORY_CACHE_ENTRIES = 1e3;
    DEFAULT_DIRECTORY_CACHE_CHARS = 16 * 1024 * 1024;
    MemoryDirectoryCache = class {
      map = /* @__PURE__ */ new Map();
      maxEntries;
      maxChars;
      chars = 0;
      /** @throws TypeError when a bound is not a positive integer. */
      constructor(options = {}) {
        if (typeof options !== "object" || options === null) throw new TypeError("MemoryDirectoryCache options must be an object");
        const { maxEntries = DEFAULT_DIRECTORY_CACHE_ENTRIES, maxChars = DEFAULT_DIRECTORY_CACHE_CHARS } = options;
        if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError("maxEntries must be a positive integer");
        if (!Number.isSafeInteger(maxChars) || maxChars < 1) throw new TypeError("maxChars must be a positive integer");
        this.maxEntries = maxEntries;
        this.maxChars = maxChars;
      }
      /** Number of entries held. */
      get size() {
        return this.map.size;
      }
      get(key) {
        const slot2 = this.map.get(key);
        if (slot2 === void 0) return Promise.resolve(void 0);
        this.map.delete(key);
        this.map.set(key, slot2);
        return Promise.resolve(slot2.entry);
      }
      set(key, entry) {
        if (typeof key !== "string") throw new TypeError("key must be a string");
        checkEntry(entry);
        this.remove(key);
        const frozen = Object.freeze({ ...entry, headers: Object.freeze({ ...entry.headers }) });
        const size = sizeOf(frozen);
        if (size > this.maxChars) return Promise.resolve();
        this.map.set(key, { entry: frozen, size });
        this.chars += size;
        while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
          const oldest = this.map.keys().next();
          if (oldest.done === true) break;
          this.remove(oldest.value);
        }
        return Promise.resolve();
      }
      delete(key) {
        this.remove(key);
        return Promise.resolve();
      }
      /** Drops every entry. */
      clear() {
        this.map.clear();
        this.chars = 0;
      }
      remove(key) {
        const slot2 = this.map.get(key);
        if (slot2 === void 0) return;
        this.map.delete(key);
        this.chars -= slot2.size;
      }
    };
  }
});

// ../head/src/directory/default-fetch.ts
function setDefaultDirectoryFetch(factory) {
  if (factory !== void 0 && typeof factory !== "function") throw new TypeError("the default directory fetch factory must be a function");
  registry2.installed = factory;
}
function defaultDirectoryFetch(context) {
  const installed2 = registry2.installed;
  if (installed2 !== void 0) return installed2(context);
  return (input, init) => globalThis.fetch(input, init);
}
var registry2;
var init_default_fetch = __esm({
  "../head/src/directory/default-fetch.ts"() {
    "use strict";
    init_process_wide();
    registry2 = processWide("default-directory-fetch.v1", () => ({ installed: void 0 }));
  }
});

// ../head/src/directory/client/fetch-step.ts
function platformFetch(s) {
  return s.fetch ?? defaultDirectoryFetch({
    allow: { loopback: s.policy.loopback === true, privateNetworks: s.policy.privateNetworks === true, hosts: [...s.hosts] },
    timeoutMs: s.timeoutMs,
    userAgent: s.userAgent
  });
}
async function admit(ctx, url, signal) {
  const host = hostKey(url);
  const trusted = ctx.s.hosts.has(host) || ctx.s.policy.loopback === true && isLoopbackHost(host);
  return { host, release: await ctx.outbound.admit(host, trusted, signal) };
}
async function fetchEntry(ctx, kind, target, stored) {
  const s = ctx.s;
  const fetchFn = ctx.fetcher();
  const deadline = startDeadline2(s.timeoutMs, "the directory");
  let admission;
  try {
    checkUrl2(s, target);
    admission = await admit(ctx, target, deadline.signal);
  } catch (error) {
    deadline.end();
    return { ok: false, error: toBotsigError(error, "the directory could not be fetched") };
  }
  const headers = {
    accept: kind === "directory" ? DIRECTORY_ACCEPT : kind === "jwks_uri" ? JWKS_ACCEPT : CIMD_ACCEPT
  };
  if (s.userAgent !== void 0) headers["user-agent"] = s.userAgent;
  if (stored !== void 0) Object.assign(headers, validatorHeaders(stored.headers));
  let url = target;
  let response;
  try {
    const requestedAtMs = s.now();
    for (let hop = 0; ; hop++) {
      checkUrl2(s, url);
      response = await fetchWithin(fetchFn, url, headers, deadline);
      const status = response.status;
      if (status === 200) break;
      if (status === 304 && stored !== void 0) break;
      if (response.type === "opaqueredirect" || status >= 300 && status < 400 && status !== 304) {
        const location = response.headers.get("location");
        cancel(response);
        if (hop >= s.maxRedirects || location === null) {
          throw fail3("ERR_DIRECTORY_FETCH", `the directory answered with a redirect (HTTP ${status}), which is not followed`);
        }
        const next = tryParseUrl(resolveLocation(location, url));
        const current = new URL(url);
        if (next === void 0 || !sameSite(current, next)) {
          throw fail3("ERR_DIRECTORY_FETCH", "the directory redirected to another site, which is not followed");
        }
        url = next.href;
        continue;
      }
      cancel(response);
      const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), s.now(), response.headers.get("date"));
      const error = fail3("ERR_DIRECTORY_FETCH", `the directory answered with HTTP status ${status}`);
      ctx.outbound.report(admission.host, false);
      return retryAfterMs === void 0 ? { ok: false, error } : { ok: false, error, retryAfterMs };
    }
    const fetchedAtMs = s.now();
    const received = pickHeaders(response.headers);
    const policy = { defaultTtlSeconds: s.defaultTtlSeconds, minTtlSeconds: s.minTtlSeconds, maxTtlSeconds: s.maxTtlSeconds };
    if (response.status === 304 && stored !== void 0) {
      cancel(response);
      const merged = { ...stored.headers, ...received };
      const freshness2 = computeFreshness(merged, requestedAtMs, fetchedAtMs, policy);
      const entry2 = { ...stored, headers: merged, requestedAtMs, fetchedAtMs, freshUntilMs: freshness2.freshUntilMs };
      return { ok: true, entry: entry2, storable: freshness2.storable };
    }
    const contentType = received["content-type"];
    if (!acceptableContentType(kind, contentType)) {
      cancel(response);
      throw fail3(
        "ERR_DIRECTORY_INVALID",
        kind === "cimd" ? "the Signature Agent Card is not served as JSON" : "the directory is not served as application/http-message-signatures-directory+json or JSON"
      );
    }
    const bytes2 = await readCapped(response, s.maxBytes, deadline.aborted);
    let body;
    try {
      body = utf8Decoder3.decode(bytes2);
    } catch (error) {
      throw fail3("ERR_DIRECTORY_INVALID", "the response body is not UTF-8", error);
    }
    const freshness = computeFreshness(received, requestedAtMs, fetchedAtMs, policy);
    const entry = { v: 1, url, body, headers: received, requestedAtMs, fetchedAtMs, freshUntilMs: freshness.freshUntilMs };
    return { ok: true, entry, storable: freshness.storable };
  } catch (error) {
    if (response !== void 0) cancel(response);
    ctx.outbound.report(admission.host, false);
    if (deadline.expired(error)) return { ok: false, error: deadline.error };
    return { ok: false, error: toBotsigError(error, "the directory could not be fetched") };
  } finally {
    deadline.end();
    admission.release();
  }
}
function cancel(response) {
  const body = response.body;
  if (body !== null && !body.locked) body.cancel().catch(() => void 0);
}
function pickHeaders(headers) {
  const out = {};
  for (const name of CACHED_HEADER_NAMES) {
    const v = headers.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}
function acceptableContentType(kind, contentType) {
  const k = directoryMediaTypeKind(contentType);
  if (kind !== "cimd") return k !== "other";
  if (k === "json") return true;
  if (contentType === void 0) return false;
  const semi = contentType.indexOf(";");
  const essence = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return essence.startsWith("application/") && essence.endsWith("+json");
}
function resolveLocation(location, base) {
  try {
    return new URL(location, base).href;
  } catch {
    return "";
  }
}
function sameSite(from, to) {
  if (from.protocol === "https:" && to.protocol !== "https:") return false;
  if (to.protocol !== "https:" && to.protocol !== "http:") return false;
  const a = from.hostname;
  const b = to.hostname;
  return a === b || b === `www.${a}` || a === `www.${b}`;
}
function startDeadline2(timeoutMs, what) {
  const controller = new AbortController();
  const error = fail3("ERR_DIRECTORY_TIMEOUT", `${what} did not answer within ${timeoutMs} ms`);
  let onAbort = () => void 0;
  const aborted = new Promise((_, reject) => {
    onAbort = reject;
  });
  aborted.catch(() => void 0);
  const timer = setTimeout(() => {
    controller.abort(error);
    onAbort(error);
  }, timeoutMs);
  return {
    signal: controller.signal,
    aborted,
    error,
    what,
    expired: (failure2) => controller.signal.aborted && !(isBotsigError(failure2) && failure2.code === "ERR_DIRECTORY_TOO_LARGE"),
    end() {
      clearTimeout(timer);
      if (!controller.signal.aborted) controller.abort();
    }
  };
}
async function fetchWithin(fetchFn, url, headers, deadline) {
  try {
    return await Promise.race([fetchFn(url, { method: "GET", headers, redirect: "manual", signal: deadline.signal }), deadline.aborted]);
  } catch (error) {
    if (deadline.signal.aborted) throw deadline.error;
    if (isBotsigError(error)) throw error;
    const cause = error?.cause;
    if (isBotsigError(cause)) throw cause;
    throw fail3("ERR_DIRECTORY_FETCH", `network error while fetching ${deadline.what}`, error);
  }
}
async function readCapped(response, maxBytes, aborted) {
  const encoding = response.headers.get("content-encoding");
  const declared = response.headers.get("content-length");
  if ((encoding === null || encoding.trim().toLowerCase() === "identity") && declared !== null) {
    const n = Number(declared);
    if (Number.isFinite(n) && n > maxBytes) throw fail3("ERR_DIRECTORY_TOO_LARGE", `the directory is larger than ${maxBytes} bytes`);
  }
  const body = response.body;
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks = [];
  let total = 0;
  try {
    for (; ; ) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      if (!(value instanceof Uint8Array)) throw fail3("ERR_DIRECTORY_FETCH", "the response body is not a byte stream");
      total += value.byteLength;
      if (total > maxBytes) throw fail3("ERR_DIRECTORY_TOO_LARGE", `the directory is larger than ${maxBytes} bytes`);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => void 0);
    throw error;
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}
var DIRECTORY_ACCEPT, JWKS_ACCEPT, CIMD_ACCEPT, utf8Decoder3;
var init_fetch_step = __esm({
  "../head/src/directory/client/fetch-step.ts"() {
    "use strict";
    init_errors();
    init_url();
    init_cache2();
    init_default_fetch();
    init_document();
    init_http_cache();
    init_fail();
    init_url_guard();
    DIRECTORY_ACCEPT = "application/http-message-signatures-directory+json, application/http-message-signatures-directory;q=0.9, application/json;q=0.5";
    JWKS_ACCEPT = "application/http-message-signatures-directory+json, application/jwk-set+json;q=0.9, application/http-message-signatures-directory;q=0.9, application/json;q=0.5";
    CIMD_ACCEPT = "application/json";
    utf8Decoder3 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  }
});

// ../head/src/directory/client/certificates.ts
async function downloadCertificate(ctx, url, purpose) {
  const s = ctx.s;
  const allowHttp = purpose === "aia" || s.allowHttp;
  checkUrl2(s, url, allowHttp);
  const fetchFn = ctx.fetcher();
  const deadline = startDeadline2(s.timeoutMs, "the certificate resource");
  let admission;
  try {
    admission = await admit(ctx, url, deadline.signal);
  } catch (error) {
    deadline.end();
    throw error;
  }
  const headers = { accept: CERTIFICATE_ACCEPT[purpose] };
  if (s.userAgent !== void 0) headers["user-agent"] = s.userAgent;
  let current = url;
  let response;
  try {
    const requestedAtMs = s.now();
    for (let hop = 0; ; hop++) {
      checkUrl2(s, current, allowHttp);
      response = await fetchWithin(fetchFn, current, headers, deadline);
      const status = response.status;
      if (status === 200) break;
      cancel(response);
      if (response.type === "opaqueredirect" || status >= 300 && status < 400) {
        const location = response.headers.get("location");
        const next = location === null || hop >= s.maxRedirects ? void 0 : tryParseUrl(resolveLocation(location, current));
        if (next === void 0 || !sameSite(new URL(current), next)) {
          throw fail3("ERR_DIRECTORY_FETCH", `the certificate resource answered with a redirect (HTTP ${status}), which is not followed`);
        }
        current = next.href;
        continue;
      }
      throw fail3("ERR_DIRECTORY_FETCH", `the certificate resource answered with HTTP status ${status}`);
    }
    const bytes2 = await readCapped(response, s.maxBytes, deadline.aborted);
    const fetchedAtMs = s.now();
    const policy = { defaultTtlSeconds: s.defaultTtlSeconds, minTtlSeconds: s.minTtlSeconds, maxTtlSeconds: s.maxTtlSeconds };
    const freshness = computeFreshness(pickHeaders(response.headers), requestedAtMs, fetchedAtMs, policy);
    ctx.outbound.report(admission.host, true);
    return { bytes: bytes2, freshUntilMs: freshness.storable ? freshness.freshUntilMs : fetchedAtMs };
  } catch (error) {
    if (response !== void 0) cancel(response);
    ctx.outbound.report(admission.host, false);
    if (deadline.expired(error)) throw deadline.error;
    throw toBotsigError(error, "the certificate resource could not be fetched");
  } finally {
    deadline.end();
    admission.release();
  }
}
var MAX_CERTIFICATE_ENTRIES, CERTIFICATE_ACCEPT, CertificateCache;
var init_certificates = __esm({
  "../head/src/directory/client/certificates.ts"() {
    "use strict";
    init_bounded_map();
    init_url();
    init_http_cache();
    init_fail();
    init_fetch_step();
    init_url_guard();
    MAX_CERTIFICATE_ENTRIES = 256;
    CERTIFICATE_ACCEPT = {
      aia: "application/pkix-cert, application/x-x509-ca-cert;q=0.9, application/x-pem-file;q=0.8, */*;q=0.1",
      x5u: "application/pem-certificate-chain, application/x-pem-file;q=0.9, application/pkix-cert;q=0.8, */*;q=0.1"
    };
    CertificateCache = class {
      ctx;
      /** Certificate resources (AIA, x5u) by URL: coalesced while in flight, reused while fresh; bounded, oldest forgotten. */
      certificates = new BoundedMap(MAX_CERTIFICATE_ENTRIES);
      constructor(ctx) {
        this.ctx = ctx;
      }
      /**
       * The fetcher delegation uses: the same URL guard (except that an AIA URI may
       * be `http:`, see {@link downloadCertificate}), size cap, timeout and redirect
       * rule as a directory; one fetch per URL at a time; fresh copies reused.
       */
      fetch = (url, purpose) => {
        const now = this.ctx.s.now();
        const held = this.certificates.get(url);
        if (held !== void 0 && now < held.untilMs) return held.body;
        const download = downloadCertificate(this.ctx, url, purpose);
        const entry = { untilMs: Number.POSITIVE_INFINITY, body: download.then((d) => d.bytes) };
        this.certificates.set(url, entry);
        download.then(
          (d) => {
            entry.untilMs = d.freshUntilMs;
          },
          () => {
            if (this.certificates.get(url) === entry) this.certificates.delete(url);
          }
        );
        return entry.body;
      };
    };
  }
});

// ../head/src/directory/client/view.ts
function viewOf(state, built, now, stale, skew) {
  const nowSeconds = now / 1e3;
  let checkAtMs = stale ? Number.POSITIVE_INFINITY : built.freshUntilMs;
  const keys = [];
  let diagnostics;
  for (const candidate of built.keys) {
    let key = candidate.key;
    const window = candidate.window;
    if (window !== void 0) {
      const early = nowSeconds < window.fromS - skew;
      if (early || nowSeconds > window.untilS + skew) {
        (diagnostics ??= [...built.diagnostics]).push({
          level: candidate.fallback === void 0 ? "error" : "warning",
          code: early ? "delegation-not-yet-valid" : "delegation-expired",
          message: `the certificate chain is ${early ? "not valid yet" : "past its validity"}; ${candidate.fallback === void 0 ? "left out" : "served with its directory proof"}`,
          at: candidate.at
        });
        if (early) checkAtMs = Math.min(checkAtMs, (window.fromS - skew) * 1e3);
        if (candidate.fallback === void 0) continue;
        key = candidate.fallback;
      } else {
        checkAtMs = Math.min(checkAtMs, (window.untilS + skew) * 1e3 + 1);
      }
    }
    const { nbf, exp } = key;
    if (nbf !== void 0 && nowSeconds < nbf - skew) {
      (diagnostics ??= [...built.diagnostics]).push({
        level: "warning",
        code: "key-not-yet-valid",
        message: "key is before its nbf; left out",
        at: candidate.at
      });
      checkAtMs = Math.min(checkAtMs, (nbf - skew) * 1e3);
      continue;
    }
    if (exp !== void 0 && nowSeconds >= exp + skew) {
      (diagnostics ??= [...built.diagnostics]).push({ level: "warning", code: "key-expired", message: "key is past its exp; left out", at: candidate.at });
      continue;
    }
    if (exp !== void 0) checkAtMs = Math.min(checkAtMs, (exp + skew) * 1e3);
    keys.push(key);
  }
  if (stale) {
    (diagnostics ??= [...built.diagnostics]).push({
      level: "warning",
      code: "directory-stale",
      message: `the refresh failed (${state.lastError?.code ?? "ERR_DIRECTORY_FETCH"}); serving the keys of the last good response`
    });
  }
  const resolution = Object.freeze({
    url: state.identifier,
    keys: Object.freeze(keys),
    diagnostics: diagnostics === void 0 ? built.diagnostics : Object.freeze(diagnostics),
    stale: stale || built.staleKeys,
    proof: proofSummary(keys)
  });
  return { resolution, checkAtMs };
}
function proofSummary(keys) {
  let signed = 0;
  for (const k of keys) if (k.signedAt !== void 0) signed++;
  return signed === 0 ? "unsigned" : signed === keys.length ? "signed" : "partial";
}
var init_view = __esm({
  "../head/src/directory/client/view.ts"() {
    "use strict";
  }
});

// ../head/src/directory/client/inline.ts
function isDataUrl(url) {
  return url.length >= 5 && url.slice(0, 5).toLowerCase() === "data:";
}
function inlineIdentifier(keys) {
  const first = keys[0];
  return first === void 0 ? "" : first.agent ?? first.thumbprint;
}
var TRANSIENT_DELEGATION_FAILURES, MAX_INLINE_ENTRIES, InlineDirectories;
var init_inline = __esm({
  "../head/src/directory/client/inline.ts"() {
    "use strict";
    init_bounded_map();
    init_data_url();
    init_errors();
    init_keys();
    init_delegation();
    init_document();
    init_delegate();
    init_fail();
    init_view();
    TRANSIENT_DELEGATION_FAILURES = /* @__PURE__ */ new Set(["fetch-failed", "not-yet-valid", "unavailable"]);
    MAX_INLINE_ENTRIES = 64;
    InlineDirectories = class {
      ctx;
      s;
      /**
       * Built answers (and permanent refusals) by member value, coalesced while in
       * flight. Member values come from request headers: bounded, oldest forgotten.
       */
      inline = new BoundedMap(MAX_INLINE_ENTRIES);
      constructor(ctx) {
        this.ctx = ctx;
        this.s = ctx.s;
      }
      /** `resolve` for an inline member (`member.inline`, or a `data:` URL). */
      resolve(member) {
        if (member.type !== "directory") {
          return Promise.reject(fail3("ERR_URL_INVALID", "a data: value is allowed only with type=directory (SPEC 2.3)"));
        }
        if (this.s.delegation === void 0 && !this.s.inlineUnverified) {
          return Promise.reject(
            new BotsigError(
              "ERR_DELEGATION_INVALID",
              "an inline data: directory is trusted only through a certificate chain to a trust anchor (SPEC 5.5 rule 5); configure delegation.trustAnchors to accept such keys"
            )
          );
        }
        let pending = this.inline.get(member.url);
        if (pending === void 0) {
          const built = this.buildInline(member);
          pending = built;
          this.inline.set(member.url, built);
          const forget = () => {
            if (this.inline.get(member.url) === built) this.inline.delete(member.url);
          };
          built.then((b) => {
            if ("error" in b && b.transient) forget();
          }, forget);
        }
        return pending.then((b) => "error" in b ? Promise.reject(b.error) : this.inlineAt(b.resolution, this.s.now()));
      }
      /** Inline keys outside their nbf/exp window (narrowed to the chain's validity) are left out, as for fetched ones. */
      inlineAt(resolution, now) {
        const nowSeconds = now / 1e3;
        const skew = this.s.skewSeconds;
        const usable = (k) => (k.nbf === void 0 || nowSeconds >= k.nbf - skew) && (k.exp === void 0 || nowSeconds < k.exp + skew);
        if (resolution.keys.every(usable)) return resolution;
        const keys = resolution.keys.filter(usable);
        return Object.freeze({
          ...resolution,
          url: inlineIdentifier(keys),
          keys: Object.freeze(keys),
          diagnostics: Object.freeze([
            ...resolution.diagnostics,
            {
              level: "warning",
              code: "key-outside-validity",
              message: `${resolution.keys.length - keys.length} inline key(s) outside their nbf/exp window or their certificate chain's validity left out`
            }
          ])
        });
      }
      async buildInline(member) {
        const body = member.inline?.body ?? parseDataUrl(member.url, { maxBytes: this.s.maxBytes }).body;
        if (body.length > this.s.maxBytes) throw fail3("ERR_DIRECTORY_TOO_LARGE", `the inline directory exceeds ${this.s.maxBytes} bytes`);
        const parsed = parseDirectorySync(body, { source: "inline", maxKeys: this.s.maxKeys });
        const diagnostics = [...parsed.diagnostics];
        const delegation = this.s.delegation;
        const unverifiedOk = this.s.inlineUnverified && !this.s.requireProof && !this.s.requireDelegation;
        const keys = [];
        let refusal;
        let unverified = 0;
        const budget = /* @__PURE__ */ new Set();
        for (const dk of parsed.keys) {
          const at = `keys[${dk.index}]`;
          const outcome = delegation !== void 0 && hasCertificateChain(dk.jwk) ? await delegateKey(this.ctx, dk.jwk, budget) : void 0;
          let key;
          try {
            key = await importVerifyingKey(dk.jwk, dk.alg === void 0 ? void 0 : { alg: dk.alg });
          } catch (error) {
            diagnostics.push({
              level: "error",
              code: "key-import-failed",
              message: `the key cannot be imported (${isBotsigError(error) ? error.code : "ERR_KEY_INVALID"})`,
              at
            });
            continue;
          }
          if (outcome?.ok === true) {
            const d = outcome.delegation;
            const nbf = dk.nbf === void 0 ? d.notBefore : Math.max(dk.nbf, d.notBefore);
            const exp = dk.exp === void 0 ? d.notAfter : Math.min(dk.exp, d.notAfter);
            keys.push(Object.freeze({ thumbprint: key.thumbprint, key, proof: "delegated", agent: d.subject, chain: d.chain, delegation: d, nbf, exp }));
            continue;
          }
          const reason = outcome === void 0 ? delegation === void 0 ? void 0 : "no-chain" : outcome.reason;
          const message = outcome === void 0 ? "the inline key carries no certificate chain (x5c or x5u); SPEC 5.5 rule 5 requires one" : outcome.error.message;
          if (reason !== void 0) {
            const error = outcome !== void 0 && !outcome.ok ? outcome.error : new BotsigError("ERR_DELEGATION_INVALID", message);
            const transient = outcome !== void 0 && !outcome.ok && TRANSIENT_DELEGATION_FAILURES.has(outcome.reason);
            if (refusal === void 0) refusal = { error, transient, count: 1 };
            else {
              refusal.count++;
              refusal.transient ||= transient;
            }
          }
          if (!unverifiedOk) {
            if (this.s.inlineUnverified && this.s.requireProof) {
              diagnostics.push({ level: "error", code: "key-unproven", message: "inline keys carry no response signature; left out (requireProof)", at });
            } else {
              diagnostics.push({ level: "error", code: `delegation-${reason ?? "no-chain"}`, message: `${message}; left out (SPEC 5.5 rule 5)`, at });
            }
            continue;
          }
          if (reason !== void 0)
            diagnostics.push({ level: "warning", code: `delegation-${reason}`, message: `${message}; accepted unverified (allow.inlineUnverified)`, at });
          unverified++;
          keys.push(
            Object.freeze({
              thumbprint: key.thumbprint,
              key,
              proof: "unsigned",
              agent: key.thumbprint,
              ...dk.nbf === void 0 ? {} : { nbf: dk.nbf },
              ...dk.exp === void 0 ? {} : { exp: dk.exp }
            })
          );
        }
        if (keys.length === 0 && refusal !== void 0 && !this.s.inlineUnverified) {
          const more = refusal.count > 1 ? ` (and ${refusal.count - 1} more inline key(s) refused)` : "";
          return { error: new BotsigError("ERR_DELEGATION_INVALID", `${refusal.error.message}${more}`, { cause: refusal.error }), transient: refusal.transient };
        }
        if (unverified > 0) {
          diagnostics.push({
            level: "warning",
            code: "inline-unverified",
            message: "inline keys accepted without a certificate chain (allow.inlineUnverified); each is identified by its thumbprint"
          });
        }
        return {
          resolution: Object.freeze({
            url: inlineIdentifier(keys),
            keys: Object.freeze(keys),
            diagnostics: Object.freeze(diagnostics),
            stale: false,
            proof: proofSummary(keys)
          })
        };
      }
    };
  }
});

// ../head/src/directory/client/settings.ts
function positiveInt(value, name, fallback, max, min = 1) {
  if (value === void 0) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}
function seconds(value, name, fallback, max) {
  if (value === void 0) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > max) {
    throw new TypeError(`${name} must be a number of seconds from 0 to ${max}`);
  }
  return value;
}
function flag2(value, name) {
  if (value === void 0) return false;
  if (typeof value !== "boolean") throw new TypeError(`${name} must be a boolean`);
  return value;
}
function canonicalHost(host) {
  const bare = host.startsWith("[") ? host : host.indexOf(":") >= 0 ? `[${host}]` : host;
  const parsed = tryParseUrl(`http://${bare}/`);
  if (parsed === void 0 || parsed.hostname === "") return void 0;
  const name = parsed.hostname;
  return name.endsWith(".") ? name.slice(0, -1) : name;
}
function settingsFrom(options) {
  if (typeof options !== "object" || options === null) throw new TypeError("DirectoryClient options must be an object");
  checkOptionNames(options, OPTION_NAMES, "DirectoryClient options");
  const { limits = {}, allow = {} } = options;
  if (typeof limits !== "object" || limits === null) throw new TypeError("limits must be an object");
  if (typeof allow !== "object" || allow === null) throw new TypeError("allow must be an object");
  checkOptionNames(limits, LIMIT_NAMES, "DirectoryClient options.limits");
  checkOptionNames(allow, ALLOW_NAMES, "DirectoryClient options.allow");
  const ports = /* @__PURE__ */ new Set();
  if (allow.ports !== void 0) {
    if (!Array.isArray(allow.ports)) throw new TypeError("allow.ports must be an array of port numbers");
    for (const port of allow.ports) {
      if (typeof port !== "number" || !Number.isSafeInteger(port) || port < 1 || port > 65535)
        throw new TypeError("allow.ports entries must be integers from 1 to 65535");
      ports.add(port);
    }
  }
  if (options.fetch !== void 0 && typeof options.fetch !== "function") throw new TypeError("fetch must be a function");
  if (options.now !== void 0 && typeof options.now !== "function") throw new TypeError("now must be a function returning milliseconds");
  if (options.random !== void 0 && typeof options.random !== "function") throw new TypeError("random must be a function");
  const cache = options.cache ?? new MemoryDirectoryCache();
  if (typeof cache !== "object" || cache === null || typeof cache.get !== "function" || typeof cache.set !== "function" || typeof cache.delete !== "function") {
    throw new TypeError("cache must implement get, set and delete");
  }
  if (options.userAgent !== void 0 && (typeof options.userAgent !== "string" || /[\r\n]/.test(options.userAgent))) {
    throw new TypeError("userAgent must be a single-line string");
  }
  const hosts = /* @__PURE__ */ new Set();
  if (allow.hosts !== void 0) {
    if (!Array.isArray(allow.hosts)) throw new TypeError("allow.hosts must be an array of host names");
    for (const h of allow.hosts) {
      const canonical = typeof h === "string" ? canonicalHost(h) : void 0;
      if (canonical === void 0) throw new TypeError("allow.hosts entries must be host names or IP literals");
      hosts.add(canonical);
    }
  }
  const d = DIRECTORY_CLIENT_DEFAULTS;
  const minTtlSeconds = seconds(options.minTtlSeconds, "minTtlSeconds", d.minTtlSeconds, 31536e3);
  const maxTtlSeconds = seconds(options.maxTtlSeconds, "maxTtlSeconds", d.maxTtlSeconds, 31536e3);
  if (minTtlSeconds > maxTtlSeconds) throw new TypeError("minTtlSeconds must not exceed maxTtlSeconds");
  const delegation = options.delegation === void 0 ? void 0 : prepareDelegation(options.delegation);
  const requireDelegation = flag2(options.requireDelegation, "requireDelegation");
  if (requireDelegation && delegation === void 0) throw new TypeError("requireDelegation needs delegation (trust anchors)");
  return {
    fetch: options.fetch,
    cache,
    now: options.now ?? systemClock,
    maxBytes: positiveInt(limits.maxBytes, "limits.maxBytes", d.maxBytes, 16 * 1024 * 1024),
    maxKeys: positiveInt(limits.maxKeys, "limits.maxKeys", d.maxKeys, 1e4),
    timeoutMs: positiveInt(limits.timeoutMs, "limits.timeoutMs", d.timeoutMs, 3e5),
    maxRedirects: positiveInt(limits.maxRedirects, "limits.maxRedirects", d.maxRedirects, 10, 0),
    allowHttp: flag2(allow.http, "allow.http"),
    policy: { loopback: flag2(allow.loopback, "allow.loopback"), privateNetworks: flag2(allow.privateNetworks, "allow.privateNetworks") },
    hosts,
    ports,
    outbound: {
      maxConcurrent: positiveInt(limits.maxConcurrent, "limits.maxConcurrent", OUTBOUND_DEFAULTS.maxConcurrent, 1e4),
      maxConcurrentPerHost: positiveInt(limits.maxConcurrentPerHost, "limits.maxConcurrentPerHost", OUTBOUND_DEFAULTS.maxConcurrentPerHost, 1e3),
      fetchesPerSecond: positiveInt(limits.fetchesPerSecond, "limits.fetchesPerSecond", OUTBOUND_DEFAULTS.fetchesPerSecond, 1e5),
      newHostsPerSitePerMinute: positiveInt(
        limits.newHostsPerSitePerMinute,
        "limits.newHostsPerSitePerMinute",
        OUTBOUND_DEFAULTS.newHostsPerSitePerMinute,
        1e5
      ),
      hostFailureThreshold: positiveInt(limits.hostFailureThreshold, "limits.hostFailureThreshold", OUTBOUND_DEFAULTS.hostFailureThreshold, 1e3),
      maxBackoffMs: seconds(options.negativeTtlSeconds, "negativeTtlSeconds", d.negativeTtlSeconds, NEGATIVE_TTL_CAP_SECONDS) * 1e3,
      maxHosts: positiveInt(limits.maxHosts, "limits.maxHosts", OUTBOUND_DEFAULTS.maxHosts, 1e7)
    },
    inlineUnverified: flag2(allow.inlineUnverified, "allow.inlineUnverified"),
    requireProof: flag2(options.requireProof, "requireProof"),
    delegation,
    requireDelegation,
    defaultTtlSeconds: seconds(options.defaultTtlSeconds, "defaultTtlSeconds", d.defaultTtlSeconds, 31536e3),
    minTtlSeconds,
    maxTtlSeconds,
    negativeTtlMs: seconds(options.negativeTtlSeconds, "negativeTtlSeconds", d.negativeTtlSeconds, NEGATIVE_TTL_CAP_SECONDS) * 1e3,
    skewSeconds: seconds(options.clockSkewSeconds, "clockSkewSeconds", d.clockSkewSeconds, 3600),
    userAgent: options.userAgent,
    maxEntries: positiveInt(options.maxEntries, "maxEntries", d.maxEntries, 1e6),
    random: options.random ?? Math.random
  };
}
var DIRECTORY_CLIENT_DEFAULTS, NEGATIVE_TTL_CAP_SECONDS, OPTION_NAMES, LIMIT_NAMES, ALLOW_NAMES;
var init_settings = __esm({
  "../head/src/directory/client/settings.ts"() {
    "use strict";
    init_options();
    init_time();
    init_url();
    init_cache2();
    init_delegation();
    init_document();
    init_outbound();
    DIRECTORY_CLIENT_DEFAULTS = Object.freeze({
      maxBytes: 65536,
      maxKeys: DEFAULT_MAX_KEYS,
      timeoutMs: 5e3,
      maxRedirects: 0,
      defaultTtlSeconds: 300,
      minTtlSeconds: 0,
      maxTtlSeconds: 86400,
      negativeTtlSeconds: 300,
      clockSkewSeconds: 60,
      maxEntries: 1e3
    });
    NEGATIVE_TTL_CAP_SECONDS = 300;
    OPTION_NAMES = [
      "fetch",
      "cache",
      "now",
      "limits",
      "allow",
      "requireProof",
      "delegation",
      "requireDelegation",
      "defaultTtlSeconds",
      "minTtlSeconds",
      "maxTtlSeconds",
      "negativeTtlSeconds",
      "clockSkewSeconds",
      "userAgent",
      "maxEntries",
      "random"
    ];
    LIMIT_NAMES = [
      "maxBytes",
      "maxKeys",
      "timeoutMs",
      "maxRedirects",
      "maxConcurrent",
      "maxConcurrentPerHost",
      "fetchesPerSecond",
      "newHostsPerSitePerMinute",
      "hostFailureThreshold",
      "maxHosts"
    ];
    ALLOW_NAMES = ["http", "loopback", "privateNetworks", "hosts", "ports", "inlineUnverified"];
  }
});

// ../head/src/directory/client/shared-cache.ts
async function cacheGet(s, key) {
  try {
    const entry = await s.cache.get(key);
    return isEntry(entry) ? entry : void 0;
  } catch {
    return void 0;
  }
}
async function cacheSet(s, key, entry) {
  try {
    await s.cache.set(key, entry);
  } catch {
  }
}
async function cacheDelete(s, key) {
  try {
    await s.cache.delete(key);
  } catch {
  }
}
async function acquireRefresh(s, key) {
  const cache = s.cache;
  if (typeof cache.acquireRefresh !== "function") return FETCH_UNLOCKED;
  try {
    const ticket = await cache.acquireRefresh(key, {
      // The lock outlives one fetch (the whole exchange is bounded by timeoutMs); waiters give up after one fetch's time.
      lockTtlMs: s.timeoutMs + 1e3,
      maxWaitMs: s.timeoutMs,
      usable: (entry) => isEntry(entry) && s.now() < entry.freshUntilMs
    });
    if (ticket.entry !== void 0) return isEntry(ticket.entry) ? { entry: ticket.entry, release: noRelease } : FETCH_UNLOCKED;
    const release = ticket.release;
    return typeof release === "function" ? {
      release: () => Promise.resolve().then(release).catch(() => void 0)
    } : FETCH_UNLOCKED;
  } catch {
    return FETCH_UNLOCKED;
  }
}
function isEntry(value) {
  if (!isPlainObject3(value)) return false;
  const e = value;
  return e.v === 1 && typeof e.url === "string" && typeof e.body === "string" && isPlainObject3(e.headers) && typeof e.fetchedAtMs === "number" && typeof e.requestedAtMs === "number" && typeof e.freshUntilMs === "number";
}
function isPlainObject3(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
var noRelease, FETCH_UNLOCKED;
var init_shared_cache = __esm({
  "../head/src/directory/client/shared-cache.ts"() {
    "use strict";
    noRelease = () => Promise.resolve();
    FETCH_UNLOCKED = Object.freeze({ release: noRelease });
  }
});

// ../head/src/directory/client/state.ts
function slow(ctx, state, now) {
  state.lastUsedMs = now;
  const built = state.built;
  if (built !== void 0 && state.view !== void 0 && now < built.freshUntilMs) {
    state.view = viewOf(state, built, now, false, ctx.s.skewSeconds);
    return Promise.resolve(state.view.resolution);
  }
  const outage = built !== void 0 && state.lastError !== void 0;
  if (state.inflight !== void 0) return outage ? Promise.resolve(staleAnswer(ctx, state, built, now)) : state.inflight;
  if (now < state.retryAtMs) {
    if (built !== void 0) return Promise.resolve(staleAnswer(ctx, state, built, now));
    return Promise.reject(state.lastError ?? fail3("ERR_DIRECTORY_FETCH", "the directory could not be fetched"));
  }
  const pending = refresh(ctx, state).finally(() => {
    state.inflight = void 0;
  });
  state.inflight = pending;
  if (outage) {
    pending.catch(() => void 0);
    return Promise.resolve(staleAnswer(ctx, state, built, now));
  }
  return pending;
}
function staleAnswer(ctx, state, built, now) {
  if (state.staleView === void 0 || now >= state.staleView.checkAtMs) state.staleView = viewOf(state, built, now, true, ctx.s.skewSeconds);
  return state.staleView.resolution;
}
async function resolveState(ctx, state) {
  const now = ctx.s.now();
  const resolution = state.view !== void 0 && now < state.view.checkAtMs ? state.view.resolution : await slow(ctx, state, now);
  const validUntilMs = state.view !== void 0 && !resolution.stale ? state.view.checkAtMs : Math.max(state.retryAtMs, now + 1e3);
  return { resolution, validUntilMs };
}
async function refresh(ctx, state) {
  let base = state.built;
  const now = ctx.s.now();
  if (base === void 0 || now >= base.freshUntilMs) {
    const shared = await cacheGet(ctx.s, state.cacheKey);
    if (shared !== void 0 && (base === void 0 || shared.fetchedAtMs > base.entry.fetchedAtMs)) {
      try {
        const built2 = await ctx.build(state, shared);
        const t2 = ctx.s.now();
        if (t2 < built2.freshUntilMs) return install(ctx, state, built2, t2).resolution;
        base = built2;
      } catch {
      }
    }
  }
  let built;
  let storable = true;
  let failure2;
  try {
    if (state.kind === "cimd" && base !== void 0 && now < base.entry.freshUntilMs) {
      built = await ctx.build(state, base.entry);
    } else {
      const ticket = await acquireRefresh(ctx.s, state.cacheKey);
      if (ticket.entry !== void 0) {
        try {
          built = await ctx.build(state, ticket.entry);
        } catch {
        }
      }
      if (built === void 0) {
        try {
          const result = await fetchEntry(ctx, state.kind, state.url, base?.entry);
          if (!result.ok) throw result;
          storable = result.storable;
          const host = hostKey(result.entry.url);
          try {
            built = await ctx.build(state, result.entry);
          } catch (error) {
            ctx.outbound.report(host, false);
            throw error;
          }
          ctx.outbound.report(host, true);
          if (base !== void 0 && storable && isOlderCopy(built, base)) {
            const entry = { ...base.entry, fetchedAtMs: result.entry.fetchedAtMs, freshUntilMs: result.entry.freshUntilMs };
            built = await ctx.build(state, entry, [
              {
                level: "warning",
                code: "older-copy-ignored",
                message: "the directory served an older signed copy than the one cached; the cached keys are kept"
              }
            ]);
          }
          if (storable) await cacheSet(ctx.s, state.cacheKey, built.entry);
          else await cacheDelete(ctx.s, state.cacheKey);
        } finally {
          await ticket.release();
        }
      }
    }
  } catch (error) {
    failure2 = isFetchFailure(error) ? error : { error: toBotsigError(error, "the directory could not be fetched") };
  }
  if (failure2 !== void 0 || built === void 0) {
    return failed(ctx, state, base, failure2?.error ?? fail3("ERR_DIRECTORY_FETCH", "the directory could not be fetched"), failure2?.retryAfterMs);
  }
  state.failures = 0;
  state.retryAtMs = 0;
  state.lastError = void 0;
  state.staleView = void 0;
  const t = ctx.s.now();
  if (!storable) {
    state.built = void 0;
    state.view = void 0;
    return viewOf(state, built, t, false, ctx.s.skewSeconds).resolution;
  }
  return install(ctx, state, built, t).resolution;
}
function failed(ctx, state, base, error, retryAfterMs) {
  const now = ctx.s.now();
  if (error.code === "ERR_DISCOVERY_LIMITED") {
    if (base === void 0) throw error;
    state.lastError = error;
    return staleAnswer(ctx, state, base, now);
  }
  state.failures++;
  const backoff = Math.min(ctx.s.negativeTtlMs, BACKOFF_BASE_MS * 2 ** Math.min(state.failures - 1, 16));
  const jittered = backoff * (0.5 + 0.5 * ctx.s.random());
  state.retryAtMs = now + Math.min(ctx.s.negativeTtlMs, Math.max(jittered, retryAfterMs ?? 0));
  state.lastError = error;
  if (base === void 0) throw error;
  state.built = base;
  state.view = void 0;
  state.staleView = viewOf(state, state.built, now, true, ctx.s.skewSeconds);
  return state.staleView.resolution;
}
function install(ctx, state, built, now) {
  state.built = built;
  state.staleView = void 0;
  state.view = viewOf(state, built, now, false, ctx.s.skewSeconds);
  return state.view;
}
function isFetchFailure(value) {
  return typeof value === "object" && value !== null && value.ok === false && isBotsigError(value.error);
}
function isOlderCopy(fetched, held) {
  return fetched.newestProof !== void 0 && held.newestProof !== void 0 && fetched.newestProof < held.newestProof;
}
var BACKOFF_BASE_MS, StateTable;
var init_state = __esm({
  "../head/src/directory/client/state.ts"() {
    "use strict";
    init_errors();
    init_fail();
    init_fetch_step();
    init_shared_cache();
    init_url_guard();
    init_view();
    BACKOFF_BASE_MS = 5e3;
    StateTable = class {
      states = { directory: /* @__PURE__ */ new Map(), jwks_uri: /* @__PURE__ */ new Map(), cimd: /* @__PURE__ */ new Map() };
      stateCount = 0;
      maxEntries;
      now;
      constructor(maxEntries, now) {
        this.maxEntries = maxEntries;
        this.now = now;
      }
      get(kind, url) {
        return this.states[kind].get(url);
      }
      getOrCreate(kind, url, identifier) {
        return this.states[kind].get(url) ?? this.create(kind, url, identifier);
      }
      create(kind, url, identifier) {
        if (this.stateCount >= this.maxEntries) this.evict();
        const state = {
          kind,
          url,
          identifier,
          cacheKey: `${kind} ${url}`,
          built: void 0,
          view: void 0,
          staleView: void 0,
          inflight: void 0,
          failures: 0,
          retryAtMs: 0,
          lastError: void 0,
          lastUsedMs: this.now(),
          imported: /* @__PURE__ */ new Map()
        };
        this.states[kind].set(url, state);
        this.stateCount++;
        return state;
      }
      /** Drops the least recently used state that has no fetch in flight (O(n), only when full). */
      evict() {
        let victim;
        for (const kind of ["directory", "jwks_uri", "cimd"]) {
          for (const state of this.states[kind].values()) {
            if (state.inflight === void 0 && (victim === void 0 || state.lastUsedMs < victim.lastUsedMs)) victim = state;
          }
        }
        if (victim !== void 0 && this.states[victim.kind].delete(victim.url)) this.stateCount--;
      }
      /** Forgets the state of a URL; false when there was none. */
      delete(kind, url) {
        if (!this.states[kind].delete(url)) return false;
        this.stateCount--;
        return true;
      }
    };
  }
});

// ../head/src/directory/client.ts
var client_exports = {};
__export(client_exports, {
  DIRECTORY_CLIENT_DEFAULTS: () => DIRECTORY_CLIENT_DEFAULTS,
  DirectoryClient: () => DirectoryClient
});
function checkMember2(member) {
  if (typeof member !== "object" || member === null) throw new TypeError("resolve expects a SignatureAgentMember");
  const m = member;
  if (typeof m.url !== "string") throw new TypeError("SignatureAgentMember.url must be a string");
  if (m.type !== "directory" && m.type !== "jwks_uri" && m.type !== "cimd") {
    throw new TypeError("SignatureAgentMember.type must be directory, jwks_uri or cimd");
  }
}
function fresh(state, now) {
  const view = state.view;
  if (view === void 0 || now >= view.checkAtMs) return void 0;
  state.lastUsedMs = now;
  return view.resolution;
}
var DirectoryClient;
var init_client = __esm({
  "../head/src/directory/client.ts"() {
    "use strict";
    init_bounded_map();
    init_outbound();
    init_build();
    init_certificates();
    init_fetch_step();
    init_inline();
    init_settings();
    init_state();
    init_url_guard();
    init_settings();
    DirectoryClient = class {
      /** The settings, the outbound budget and the steps, as the client modules see them. */
      ctx;
      /** What each member value maps to, per member type. Member values come from request headers: bounded, oldest forgotten. */
      targets;
      states;
      inline;
      /**
       * @throws TypeError when an option has the wrong type or is out of range
       *   (e.g. `negativeTtlSeconds` above 300, `minTtlSeconds` above `maxTtlSeconds`,
       *   empty or malformed `delegation.trustAnchors`, `requireDelegation` without `delegation`).
       */
      constructor(options = {}) {
        const s = settingsFrom(options);
        const outbound = new OutboundLimiter(s.outbound, s.now);
        let fetchFn;
        const base = { s, outbound, fetcher: () => fetchFn ??= platformFetch(s) };
        const certificates = new CertificateCache(base);
        const states = new StateTable(s.maxEntries, s.now);
        const ctx = {
          ...base,
          fetchCertificate: certificates.fetch,
          build: (state, entry, extra) => build(ctx, state, entry, extra),
          resolveJwks: (url, identifier) => resolveState(ctx, states.getOrCreate("jwks_uri", url, identifier))
        };
        this.ctx = ctx;
        this.states = states;
        this.inline = new InlineDirectories(ctx);
        const max = s.maxEntries * 4;
        this.targets = { directory: new BoundedMap(max), jwks_uri: new BoundedMap(max), cimd: new BoundedMap(max) };
        s.delegation?.anchors.load().catch(() => void 0);
      }
      /**
       * Resolves a member to its keys (SPEC 2.3, 4.1; NOTES "Keys and identity"):
       * `directory` → `{origin}/.well-known/http-message-signatures-directory`,
       * `jwks_uri` → the JWK Set at the URL, `cimd` → the Signature Agent Card at the
       * URL (its `client_id` must be that URL; keys from `jwks` or a fetched
       * `jwks_uri`), inline `data:` → the keys whose certificate chain reaches a
       * trust anchor (with `delegation`), or every key unverified with
       * `allow.inlineUnverified`, else refused (SPEC 5.5 rule 5).
       * `url` in the result is the agent identifier; each key carries its proof status
       * (SPEC 5.4, 5.5). Keys outside their `nbf`/`exp` window, or whose chain is
       * not valid at the time of use, are left out (or, for a fetched directory
       * without `requireDelegation`, served with their directory proof).
       *
       * While an entry is fresh this is a map lookup; otherwise concurrent callers
       * share one fetch. After a failed refresh the previous keys are returned with
       * `stale: true` and a `directory-stale` diagnostic; without previous keys the
       * failure is thrown (and remembered until the backoff ends).
       *
       * @throws BotsigError `ERR_URL_INVALID` (not an absolute http(s) URL, userinfo),
       *   `ERR_URL_BLOCKED` (scheme or host refused), `ERR_DIRECTORY_FETCH` (network
       *   error, status other than 200/304, redirect not followed),
       *   `ERR_DIRECTORY_TIMEOUT`, `ERR_DIRECTORY_TOO_LARGE`, `ERR_DIRECTORY_INVALID`
       *   (not JSON, not a directory or card, wrong Content-Type, `client_id`
       *   mismatch), `ERR_DELEGATION_INVALID` (an inline directory none of whose
       *   keys is accepted through delegation: the message says why for the first).
       * @throws TypeError when `member` is not a SignatureAgentMember.
       * @example
       * const { url, keys } = await client.resolve({ url: 'https://agent.example', type: 'directory', scheme: 'https', index: 0 });
       * const key = keys.find((k) => k.thumbprint === keyid)?.key;
       */
      async resolve(member) {
        checkMember2(member);
        const kind = member.type;
        let target = this.targets[kind].get(member.url);
        if (target === void 0) {
          if (member.inline !== void 0 || isDataUrl(member.url)) return this.inline.resolve(member);
          target = targetFor(this.ctx.s, member);
          this.targets[kind].set(member.url, target);
        }
        if ("error" in target) throw target.error;
        let state = this.states.get(kind, target.url);
        if (state === void 0) state = this.states.create(kind, target.url, target.identifier);
        const now = this.ctx.s.now();
        return fresh(state, now) ?? slow(this.ctx, state, now);
      }
      /**
       * The answer {@link resolve} gives at once while the member's entry is fresh, without a
       * promise; `undefined` when `resolve` would have to do more (no entry yet, a stale
       * entry to revalidate or refresh, a failure to report, an inline `data:` member).
       * Never fetches and never throws for a well-formed member. `verifyRequest` asks it
       * first, so a request whose key comes from a warm cache starts no discovery deadline.
       *
       * @throws TypeError when `member` is not a SignatureAgentMember.
       * @example
       * const warm = client.resolveFresh(member) ?? (await client.resolve(member));
       */
      resolveFresh(member) {
        checkMember2(member);
        const target = this.targets[member.type].get(member.url);
        if (target === void 0 || "error" in target) return void 0;
        const state = this.states.get(member.type, target.url);
        return state === void 0 ? void 0 : fresh(state, this.ctx.s.now());
      }
      /** Forgets everything about a URL in process (the shared cache is left alone). */
      forget(member) {
        checkMember2(member);
        const target = this.targets[member.type].get(member.url);
        this.targets[member.type].delete(member.url);
        if (target !== void 0 && "url" in target) this.states.delete(member.type, target.url);
      }
    };
  }
});

// ../head/src/node/guarded-fetch.ts
var guarded_fetch_exports = {};
__export(guarded_fetch_exports, {
  DEFAULT_GUARDED_FETCH_TIMEOUT_MS: () => DEFAULT_GUARDED_FETCH_TIMEOUT_MS,
  createGuardedFetch: () => createGuardedFetch
});
import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest } from "node:http";
import { connect as netConnect } from "node:net";
import { pipeline, Readable } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
function normaliseHost(host) {
  let h = host.toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}
function checkOptions4(options) {
  if (options === void 0) return;
  if (typeof options !== "object" || options === null) throw new TypeError("createGuardedFetch options must be an object");
  const { allow, lookup: lookup2, connect, timeoutMs, userAgent } = options;
  if (allow !== void 0) {
    if (typeof allow !== "object" || allow === null) throw new TypeError("options.allow must be an object");
    if (allow.hosts !== void 0 && (!Array.isArray(allow.hosts) || allow.hosts.some((h) => typeof h !== "string" || h === ""))) {
      throw new TypeError("options.allow.hosts must be an array of host names");
    }
  }
  if (lookup2 !== void 0 && typeof lookup2 !== "function") throw new TypeError("options.lookup must be a function");
  if (connect !== void 0 && typeof connect !== "function") throw new TypeError("options.connect must be a function");
  if (timeoutMs !== void 0 && (typeof timeoutMs !== "number" || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))) {
    throw new TypeError("options.timeoutMs must be a positive number");
  }
  if (userAgent !== void 0 && typeof userAgent !== "string") throw new TypeError("options.userAgent must be a string");
}
function defaultConnect(target) {
  const pinned = (_host, _opts, cb) => cb(null, target.address, target.family);
  if (!target.tls) return netConnect({ host: target.address, port: target.port, family: target.family, lookup: pinned });
  const literal = classifyHost(target.hostname).kind === "ip";
  return tlsConnect({
    host: target.address,
    port: target.port,
    lookup: pinned,
    // SNI and the certificate check use the name from the URL, not the address (RFC 6066 §3: no IP literals in SNI).
    ...literal ? {} : { servername: target.hostname },
    ...target.ca === void 0 ? {} : { ca: typeof target.ca === "string" ? target.ca : [...target.ca] },
    ALPNProtocols: ["http/1.1"]
  });
}
function blocked(what) {
  return new BotsigError("ERR_URL_BLOCKED", `the host ${what}; it is not reachable under the address policy`);
}
function fetchFailed(message, cause) {
  return new BotsigError("ERR_DIRECTORY_FETCH", message, cause === void 0 ? void 0 : { cause });
}
function abortReason(signal) {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
function createGuardedFetch(options) {
  checkOptions4(options);
  const policy = { loopback: options?.allow?.loopback === true, privateNetworks: options?.allow?.privateNetworks === true };
  const allowedHosts = new Set((options?.allow?.hosts ?? []).map(normaliseHost));
  const lookup2 = options?.lookup ?? dnsLookup;
  const connect = options?.connect ?? defaultConnect;
  const timeoutMs = options?.timeoutMs ?? DEFAULT_GUARDED_FETCH_TIMEOUT_MS;
  const userAgent = options?.userAgent;
  const ca = options?.ca;
  function resolve(hostname) {
    const host = normaliseHost(hostname);
    const open = allowedHosts.has(host);
    const info = classifyHost(host);
    if (info.kind === "ip") {
      if (!open && !isRangeAllowed(info.ip.range, policy)) return Promise.reject(blocked(`is a ${info.ip.range} address`));
      return Promise.resolve({ address: host, family: info.ip.version });
    }
    if (!open && info.special !== void 0) {
      const ok = info.special === "localhost" ? policy.loopback === true : policy.privateNetworks === true;
      if (!ok) return Promise.reject(blocked(`is a ${info.special} name`));
    }
    return new Promise((resolveFn, reject) => {
      try {
        lookup2(host, { all: true, verbatim: true }, (error, addresses, family) => {
          if (error !== null && error !== void 0) {
            reject(fetchFailed("DNS resolution failed", error));
            return;
          }
          const list = typeof addresses === "string" ? [{ address: addresses, family: family ?? 0 }] : Array.isArray(addresses) ? addresses : [];
          if (list.length === 0) {
            reject(fetchFailed("DNS resolution returned no address"));
            return;
          }
          let first;
          for (const entry of list) {
            const address = typeof entry === "object" && entry !== null ? entry.address : void 0;
            const ip = typeof address === "string" ? classifyHost(address) : void 0;
            if (ip === void 0 || ip.kind !== "ip") {
              reject(fetchFailed("DNS resolution returned something that is not an IP address"));
              return;
            }
            if (!open && !isAddressAllowed(address, policy)) {
              reject(blocked(`resolves to a ${ip.ip.range} address`));
              return;
            }
            first ??= { address: normaliseHost(address), family: ip.ip.version };
          }
          resolveFn(first);
        });
      } catch (error) {
        reject(fetchFailed("DNS resolution failed", error));
      }
    });
  }
  async function guardedFetch(input, init) {
    const req = input instanceof Request ? input : void 0;
    let url;
    try {
      url = new URL(req !== void 0 ? req.url : input instanceof URL ? input.href : String(input));
    } catch (error) {
      throw new BotsigError("ERR_URL_INVALID", "the URL is not a valid absolute URL", { cause: error });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw blocked("uses a scheme other than http or https");
    if (url.username !== "" || url.password !== "") throw blocked("URL carries credentials");
    const method = (init?.method ?? req?.method ?? "GET").toUpperCase();
    const headers = new Headers(init?.headers ?? req?.headers);
    const signal = init?.signal ?? req?.signal ?? void 0;
    const redirect = init?.redirect ?? req?.redirect ?? "manual";
    let body;
    const rawBody = init?.body ?? void 0;
    if (rawBody !== void 0 && rawBody !== null) {
      if (typeof rawBody === "string") body = new TextEncoder().encode(rawBody);
      else if (rawBody instanceof Uint8Array) body = rawBody;
      else if (rawBody instanceof ArrayBuffer) body = new Uint8Array(rawBody);
      else throw new TypeError("guarded fetch bodies must be a string, Uint8Array or ArrayBuffer");
    } else if (init?.body === void 0 && req !== void 0 && req.body !== null) {
      body = new Uint8Array(await req.arrayBuffer());
    }
    if (signal?.aborted === true) throw abortReason(signal);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new BotsigError("ERR_DIRECTORY_TIMEOUT", `no complete response within ${timeoutMs} ms`)), timeoutMs);
    timer.unref?.();
    const stopSignals = [];
    const cleanup = () => {
      clearTimeout(timer);
      for (const stop of stopSignals.splice(0)) stop();
    };
    return new Promise((resolvePromise, rejectPromise) => {
      let settled = false;
      let clientRequest;
      let responseStream;
      const fail4 = (reason) => {
        if (!settled) {
          settled = true;
          cleanup();
          clientRequest?.destroy();
          rejectPromise(reason);
          return;
        }
        cleanup();
        responseStream?.destroy(reason instanceof Error ? reason : new Error(String(reason)));
        clientRequest?.destroy();
      };
      const watch = (s, reasonOf) => {
        const listener = () => fail4(reasonOf());
        s.addEventListener("abort", listener, { once: true });
        stopSignals.push(() => s.removeEventListener("abort", listener));
      };
      watch(deadline.signal, () => deadline.signal.reason);
      if (signal !== void 0) watch(signal, () => abortReason(signal));
      resolve(url.hostname).then(
        (target) => {
          if (settled) return;
          const outgoing = {};
          headers.forEach((value, name) => {
            outgoing[name] = value;
          });
          outgoing["host"] = url.host;
          if (!headers.has("accept-encoding")) outgoing["accept-encoding"] = "gzip, deflate, br";
          if (userAgent !== void 0 && !headers.has("user-agent")) outgoing["user-agent"] = userAgent;
          if (body !== void 0) outgoing["content-length"] = String(body.length);
          const connectTarget = {
            address: target.address,
            family: target.family,
            port: url.port === "" ? url.protocol === "https:" ? 443 : 80 : Number(url.port),
            tls: url.protocol === "https:",
            hostname: normaliseHost(url.hostname),
            ...ca === void 0 ? {} : { ca }
          };
          let cr;
          try {
            cr = httpRequest({
              method,
              path: url.pathname + url.search,
              headers: outgoing,
              // No agent: the socket comes from createConnection, opened on the checked address.
              createConnection: () => connect(connectTarget)
            });
          } catch (error) {
            fail4(isBotsigError(error) ? error : fetchFailed("the request could not be sent", error));
            return;
          }
          clientRequest = cr;
          cr.on("error", (error) => fail4(isBotsigError(error) ? error : fetchFailed("the connection failed", error)));
          cr.on("response", (res) => {
            if (settled) {
              res.destroy();
              return;
            }
            let response;
            try {
              response = toResponse(res, method, url, (s) => responseStream = s, cleanup);
            } catch (error) {
              fail4(isBotsigError(error) ? error : fetchFailed("the response is not valid HTTP", error));
              return;
            }
            if (redirect === "error" && response.status >= 300 && response.status < 400 && response.headers.has("location")) {
              fail4(fetchFailed('the response is a redirect and redirect is "error"'));
              return;
            }
            settled = true;
            resolvePromise(response);
          });
          cr.end(body);
        },
        (error) => fail4(error)
      );
    });
  }
  return guardedFetch;
}
function decoded(res) {
  const header3 = res.headers["content-encoding"];
  if (typeof header3 !== "string" || header3 === "") return res;
  const codings = header3.split(",").map((c) => c.trim().toLowerCase()).filter((c) => c !== "" && c !== "identity");
  if (codings.length === 0) return res;
  if (codings.length > MAX_CODINGS) throw fetchFailed("too many content codings");
  const stages = [];
  for (let i = codings.length - 1; i >= 0; i--) {
    const c = codings[i];
    if (c === "gzip" || c === "x-gzip") stages.push(createGunzip());
    else if (c === "deflate") stages.push(createInflate());
    else if (c === "br") stages.push(createBrotliDecompress());
    else return res;
  }
  const out = stages[stages.length - 1];
  pipeline([res, ...stages], () => void 0);
  return out;
}
function toResponse(res, method, url, setStream, done) {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) throw fetchFailed("the response status is outside 200-599");
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  let body = null;
  if (method === "HEAD" || NULL_BODY_STATUS.has(status)) {
    res.resume();
    res.on("end", done);
    res.on("error", done);
  } else {
    const stream = decoded(res);
    setStream(stream);
    stream.on("end", done);
    stream.on("error", done);
    stream.on("close", done);
    body = Readable.toWeb(stream);
  }
  const response = new Response(body, { status, statusText: res.statusMessage ?? "", headers });
  Object.defineProperty(response, "url", { value: url.href, enumerable: true });
  return response;
}
var DEFAULT_GUARDED_FETCH_TIMEOUT_MS, MAX_CODINGS, NULL_BODY_STATUS;
var init_guarded_fetch = __esm({
  "../head/src/node/guarded-fetch.ts"() {
    "use strict";
    init_errors();
    init_ip();
    DEFAULT_GUARDED_FETCH_TIMEOUT_MS = 5e3;
    MAX_CODINGS = 4;
    NULL_BODY_STATUS = /* @__PURE__ */ new Set([101, 103, 204, 205, 304]);
  }
});

// ../head/src/index.ts
var src_exports = {};
__export(src_exports, {
  ALGORITHMS: () => ALGORITHMS,
  BotsigError: () => BotsigError,
  DIRECTORY_MEDIA_TYPE: () => DIRECTORY_MEDIA_TYPE,
  MemoryNonceStore: () => MemoryNonceStore,
  SIGNATURE_AGENT_TYPES: () => SIGNATURE_AGENT_TYPES,
  WEB_BOT_AUTH_TAG: () => WEB_BOT_AUTH_TAG,
  WELL_KNOWN_PATH: () => WELL_KNOWN_PATH,
  acceptSignatureValue: () => acceptSignatureValue,
  agentIdentifier: () => agentIdentifier,
  applySignatureHeaders: () => applySignatureHeaders,
  challengeResponse: () => challengeResponse,
  createChallenge: () => createChallenge,
  createContentDigest: () => createContentDigest,
  createVerifier: () => createVerifier,
  directoryUrlFor: () => directoryUrlFor,
  generateKeyPair: () => generateKeyPair,
  getCryptoProvider: () => getCryptoProvider,
  importSigningKey: () => importSigningKey,
  importVerifyingKey: () => importVerifyingKey,
  isBotsigError: () => isBotsigError,
  isRfc9421TestKey: () => isRfc9421TestKey,
  isVerifier: () => isVerifier,
  joseAlgToHttpSig: () => joseAlgToHttpSig,
  jwkThumbprint: () => jwkThumbprint,
  jwkThumbprintSync: () => jwkThumbprintSync,
  keyForAlgorithm: () => keyForAlgorithm,
  normalizeUrl: () => normalizeUrl,
  parseAcceptSignature: () => parseAcceptSignature,
  parseSignatureAgent: () => parseSignatureAgent,
  relabelSignature: () => relabelSignature,
  serializeSignatureAgent: () => serializeSignatureAgent,
  setCryptoProvider: () => setCryptoProvider,
  signOptionsFromChallenge: () => signOptionsFromChallenge,
  signRequest: () => signRequest,
  signatureAgentComponent: () => signatureAgentComponent,
  toAlgorithmName: () => toAlgorithmName,
  verifyContentDigest: () => verifyContentDigest,
  verifyRequest: () => verifyRequest
});

// ../head/src/profile/sign-request.ts
init_base64();
init_errors();
init_sf();
init_time();
init_keys();
init_base2();
init_message();
init_signature_input();

// ../head/src/profile/sign/random-nonce.ts
init_base64();
var NONCE_BYTES = 64;
var RANDOM_POOL_BYTES = 4096;
var RandomPool = class {
  pool = new Uint8Array(RANDOM_POOL_BYTES);
  offset = RANDOM_POOL_BYTES;
  /** `n` fresh random bytes, valid until the caller zeroes them (before the next call). */
  take(n) {
    if (this.offset + n > RANDOM_POOL_BYTES) {
      globalThis.crypto.getRandomValues(this.pool);
      this.offset = 0;
    }
    const bytes2 = this.pool.subarray(this.offset, this.offset + n);
    this.offset += n;
    return bytes2;
  }
};
var randomPool = new RandomPool();
function randomNonce() {
  const bytes2 = randomPool.take(NONCE_BYTES);
  const nonce = base64UrlEncode(bytes2);
  bytes2.fill(0);
  return nonce;
}

// ../head/src/profile/sign/signer-state.ts
init_bounded_map();
init_keys();
init_components();
init_signature_agent();
var COMPONENT_CACHE_MAX = 256;
var componentCache = new BoundedMap(COMPONENT_CACHE_MAX);
function parsedComponent(text) {
  let hit = typeof text === "string" ? componentCache.get(text) : void 0;
  if (hit === void 0) {
    const id = parseComponentIdentifier(text);
    hit = { id, canonical: serializeComponentIdentifier(id) };
    if (typeof text === "string" && text.length <= 256) componentCache.set(text, hit);
  }
  return hit;
}
var OWN_AGENT_CACHE_MAX = 64;
var ownAgentCache = new BoundedMap(OWN_AGENT_CACHE_MAX);
function serializedMember(label, url, type) {
  const cacheKey = label + " " + (type ?? "") + " " + url;
  let member = ownAgentCache.get(cacheKey);
  if (member === void 0) {
    member = serializeSignatureAgent([{ key: label, url, ...type === void 0 ? {} : { type } }]);
    ownAgentCache.set(cacheKey, member);
  }
  return member;
}
var SignerState = class {
  key;
  internals;
  // `"signature-agent";key="<label>"` for the last label.
  agentLabel = void 0;
  agentComponent = "";
  // The member of the last request, checked before the process-wide cache (no key to build).
  ownLabel = "";
  ownUrl = "";
  ownType = void 0;
  ownMember = "";
  constructor(key) {
    this.key = key;
    this.internals = signingInternals(key);
  }
  /** The signature over `base` (RFC 9421 §3.1 step 6), as `signBase(key, base)`. */
  sign(base) {
    return signBaseWith(this.key, this.internals, base);
  }
  /** `"signature-agent";key="<label>"`. */
  agentComponentFor(label) {
    if (label !== this.agentLabel) {
      this.agentComponent = signatureAgentComponent(label);
      this.agentLabel = label;
    }
    return this.agentComponent;
  }
  /** Our own Signature-Agent member `label=url` (with its type), serialised and checked (SPEC 2.3). */
  memberFor(label, url, type) {
    if (typeof url !== "string") return serializeSignatureAgent([{ key: label, url, ...type === void 0 ? {} : { type } }]);
    if (label === this.ownLabel && url === this.ownUrl && type === this.ownType && this.ownMember !== "") return this.ownMember;
    const member = serializedMember(label, url, type);
    this.ownLabel = label;
    this.ownUrl = url;
    this.ownType = type;
    this.ownMember = member;
    return member;
  }
};
var signerStates = /* @__PURE__ */ new WeakMap();
function signerStateFor(key) {
  let state = signerStates.get(key);
  if (state === void 0) {
    state = new SignerState(key);
    signerStates.set(key, state);
  }
  return state;
}

// ../head/src/profile/types.ts
var WEB_BOT_AUTH_TAG = "web-bot-auth";

// ../head/src/profile/sign/apply-headers.ts
function applySignatureHeaders(target, headers) {
  if (typeof headers !== "object" || headers === null) throw new TypeError("headers must be the object signRequest returned");
  const entries = [];
  for (const name of ["signature-input", "signature", "signature-agent", "content-digest"]) {
    const value = headers[name];
    if (typeof value === "string") entries.push([name, value]);
  }
  if (typeof Request !== "undefined" && target instanceof Request) return applySignatureHeaders(target.headers, headers);
  if (typeof Headers !== "undefined" && target instanceof Headers) {
    for (const [name, value] of entries) target.set(name, value);
    return;
  }
  if (Array.isArray(target)) {
    for (const [name, value] of entries) {
      for (let i = target.length - 1; i >= 0; i--) if (target[i][0].toLowerCase() === name) target.splice(i, 1);
      target.push([name, value]);
    }
    return;
  }
  if (typeof target !== "object" || target === null) throw new TypeError("cannot apply headers to this target");
  const record = target;
  for (const [name, value] of entries) {
    for (const existing of Object.keys(record)) if (existing.toLowerCase() === name && existing !== name) delete record[existing];
    record[name] = value;
  }
}

// ../head/src/profile/sign-request.ts
var DEFAULT_VALIDITY_SECONDS = 300;
var MAX_RECOMMENDED_VALIDITY_SECONDS = 86400;
var MAX_SF_INTEGER = 999999999999999;
async function signRequest(request, options) {
  checkOptions2(options);
  const key = isSigningKey(options.key) ? options.key : await importSigningKey(options.key, options.alg === void 0 ? {} : { alg: options.alg });
  const signer = signerStateFor(key);
  const contentDigest = options.contentDigest === void 0 ? void 0 : await digestToSign(request, options);
  const plan = prepare(request, options, key, signer, contentDigest);
  return plan.finish(await signer.sign(plan.base));
}
async function digestToSign(request, options) {
  const { contentDigestToSign: contentDigestToSign2 } = await Promise.resolve().then(() => (init_sign(), sign_exports));
  return contentDigestToSign2(request, options.contentDigest, options.maxBodyBytes);
}
function prepare(request, options, key, signer, contentDigest) {
  if (options.contentDigest !== void 0 && contentDigest === void 0) throw new TypeError("contentDigest reads the content: use the asynchronous signRequest()");
  const message = toReceivedMessage(request);
  if (message.kind !== "request") throw new TypeError("signRequest() signs requests; use signMessage() from botsig/httpsig for responses");
  const now = options.now ?? systemClock;
  const tag = options.tag ?? WEB_BOT_AUTH_TAG;
  const profile = tag === WEB_BOT_AUTH_TAG;
  const existingInput = joined(message, "signature-input");
  const existingSignature = joined(message, "signature");
  const existingAgent = joined(message, "signature-agent");
  const taken = /* @__PURE__ */ new Set();
  const fresh2 = existingInput === void 0 && existingSignature === void 0 && existingAgent === void 0;
  const existingInputs = existingInput === void 0 ? void 0 : parseSignatureInput(existingInput);
  if (existingInputs !== void 0) for (const label2 of existingInputs.keys()) taken.add(label2);
  if (existingSignature !== void 0) {
    for (const label2 of parseSignatureDictionary(existingSignature, "ERR_SIGNATURE_PARSE", "Signature").keys()) taken.add(label2);
  }
  let agentKeys;
  if (existingAgent !== void 0 && options.signatureAgent !== void 0) {
    agentKeys = existingAgentKeys(existingAgent);
    for (const k of agentKeys) taken.add(k);
    if (existingInputs !== void 0) {
      for (const input of existingInputs.values()) {
        if (input.components.some((c) => c.name === "signature-agent" && !c.params.has("key"))) {
          throw new BotsigError(
            "ERR_SIGNATURE_AGENT_INVALID",
            `signature "${input.label}" covers the whole Signature-Agent field; adding a member would break it`
          );
        }
      }
    }
  }
  let label = options.label;
  if (label === void 0) label = fresh2 ? "sig1" : nextLabel(taken);
  else if (!isValidLabel(label)) throw new TypeError('label must be a Structured Field key (lowercase, e.g. "sig1")');
  else if (taken.has(label)) throw new BotsigError("ERR_LABEL_EXISTS", `label "${label}" is already used on this request`);
  let signatureAgentValue;
  let signed = message;
  let agentComponent;
  if (options.signatureAgent !== void 0) {
    signer ??= signerStateFor(key);
    const agent = typeof options.signatureAgent === "string" ? { url: options.signatureAgent } : options.signatureAgent;
    const ours = signer.memberFor(label, agent.url, agent.type);
    signatureAgentValue = existingAgent === void 0 ? ours : `${existingAgent}, ${ours}`;
    if (message === request) {
      const headers = new Map(message.headers);
      headers.set("signature-agent", [signatureAgentValue]);
      signed = { ...message, headers };
    } else {
      message.headers.set("signature-agent", [signatureAgentValue]);
    }
    agentComponent = signer.agentComponentFor(label);
  }
  if (contentDigest !== void 0) {
    if (signed === request) signed = { ...signed, headers: new Map(signed.headers) };
    signed.headers.set("content-digest", [contentDigest]);
  }
  const requested = [];
  if (!options.replaceComponents) {
    requested.push('"@authority"');
    if (agentComponent !== void 0) requested.push(agentComponent);
  }
  if (options.components !== void 0) {
    if (!Array.isArray(options.components)) throw new TypeError("components must be an array of component identifiers");
    requested.push(...options.components);
  }
  if (options.replaceComponents && agentComponent !== void 0) requested.push(agentComponent);
  if (contentDigest !== void 0) requested.push('"content-digest"');
  const ids = [];
  const idTexts = [];
  let coversAuthority = false;
  let coversAgent = false;
  for (const text of requested) {
    const { id, canonical } = parsedComponent(text);
    if (idTexts.includes(canonical)) continue;
    idTexts.push(canonical);
    ids.push(id);
    if (id.name === "@authority" || id.name === "@target-uri") coversAuthority = true;
    else if (id.name === "signature-agent") coversAgent = true;
  }
  if (profile && !coversAuthority) {
    throw new BotsigError("ERR_REQUIRED_COMPONENT", "a web-bot-auth signature must cover @authority or @target-uri (SPEC 5.1)");
  }
  if (profile && existingAgent !== void 0 && !coversAgent) {
    throw new BotsigError(
      "ERR_SIGNATURE_AGENT_NOT_COVERED",
      "the request carries a Signature-Agent header, so the signature must cover a member of it (SPEC 5.2 rule 1); pass signatureAgent"
    );
  }
  const nowSeconds = Math.floor(now() / 1e3);
  const created = options.created === void 0 ? nowSeconds : toEpochSeconds(options.created, "created");
  const expires = options.expires === void 0 ? created + (options.validitySeconds ?? DEFAULT_VALIDITY_SECONDS) : toEpochSeconds(options.expires, "expires");
  if (expires <= created) throw new RangeError("expires must be after created");
  if (expires - created > MAX_RECOMMENDED_VALIDITY_SECONDS && !options.allowLongValidity) {
    throw new BotsigError("ERR_VALIDITY_TOO_LONG", `validity of ${expires - created} s is above 24 hours (SPEC 8); pass allowLongValidity to force it`);
  }
  let paramsText = "(" + idTexts.join(" ") + ");created=" + sfInteger2(created, "created") + ";keyid=" + sfString2(key.thumbprint, "keyid");
  if (options.includeAlg !== false) paramsText += ";alg=" + sfString2(key.alg, "alg");
  paramsText += ";expires=" + sfInteger2(expires, "expires");
  if (options.nonce === void 0) paramsText += ';nonce="' + randomNonce() + '"';
  else if (options.nonce !== false) paramsText += ";nonce=" + sfString2(options.nonce, "nonce");
  paramsText += ";tag=" + (tag === WEB_BOT_AUTH_TAG ? '"web-bot-auth"' : sfString2(tag, "tag"));
  const base = signatureBaseFromTexts(signed, ids, idTexts, paramsText);
  const inputMember = label + "=" + paramsText;
  const finalLabel = label;
  return {
    base,
    finish(signature) {
      const signatureMember = `${finalLabel}=:${base64Encode(signature)}:`;
      return {
        "signature-input": existingInput === void 0 ? inputMember : `${existingInput}, ${inputMember}`,
        signature: existingSignature === void 0 ? signatureMember : `${existingSignature}, ${signatureMember}`,
        ...signatureAgentValue === void 0 ? {} : { "signature-agent": signatureAgentValue },
        ...contentDigest === void 0 ? {} : { "content-digest": contentDigest }
      };
    }
  };
}
var PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
function sfString2(value, name) {
  if (typeof value === "string" && PLAIN.test(value)) return '"' + value + '"';
  try {
    return serializeBareItem({ type: "string", value });
  } catch (cause) {
    throw new BotsigError("ERR_PARAM_INVALID", `the ${name} parameter cannot be serialised`, { cause });
  }
}
function sfInteger2(value, name) {
  if (!Number.isSafeInteger(value) || value > MAX_SF_INTEGER || value < -MAX_SF_INTEGER) {
    throw new BotsigError("ERR_PARAM_INVALID", `the ${name} parameter is out of the Integer range`);
  }
  return String(value);
}
function checkOptions2(options) {
  if (typeof options !== "object" || options === null) throw new TypeError("signRequest options must be an object");
  if (options.key === void 0 || options.key === null) throw new TypeError("options.key is required");
  if (options.validitySeconds !== void 0 && (!Number.isSafeInteger(options.validitySeconds) || options.validitySeconds <= 0)) {
    throw new RangeError("validitySeconds must be a positive integer");
  }
  if (options.nonce !== void 0 && options.nonce !== false && (typeof options.nonce !== "string" || options.nonce === "")) {
    throw new TypeError("nonce must be a non-empty string or false");
  }
  if (options.tag !== void 0 && (typeof options.tag !== "string" || options.tag === "")) throw new TypeError("tag must be a non-empty string");
  if (options.now !== void 0 && typeof options.now !== "function") throw new TypeError("now must be a function returning milliseconds");
}
function joined(message, name) {
  const lines = message.headers.get(name);
  if (lines === void 0) return void 0;
  let out = "";
  for (const line of lines) {
    const t = line.trim();
    if (t !== "") out = out === "" ? t : out + ", " + t;
  }
  return out === "" ? void 0 : out;
}
function existingAgentKeys(value) {
  try {
    return [...parseDictionary(value).keys()];
  } catch {
    throw new BotsigError(
      "ERR_SIGNATURE_AGENT_INVALID",
      "the request already carries a Signature-Agent header that is not a dictionary; remove it or sign without signatureAgent"
    );
  }
}

// ../head/src/profile/verify-request.ts
init_errors();
init_keys();

// ../head/src/crypto/test-keys.ts
init_errors();
init_thumbprint();
var RFC9421_TEST_KEY_THUMBPRINTS = Object.freeze({
  // §B.1.1 test-key-rsa (2048-bit RSA, PKCS #1)
  "BHj8s0GPnMEQtkaULIM-PLgEhLBbuGUQ1vMxmBWZzEo": "test-key-rsa",
  // §B.1.2 test-key-rsa-pss
  "oD0HwocPBSfpNy5W3bpJeyFGY_IQ_YpqxSjQ3Yd-CLA": "test-key-rsa-pss",
  // §B.1.3 test-key-ecc-p256
  "ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI": "test-key-ecc-p256",
  // §B.1.4 test-key-ed25519
  "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U": "test-key-ed25519"
});
function isRfc9421TestKey(jwkOrThumbprint) {
  if (typeof jwkOrThumbprint === "string") return Object.prototype.hasOwnProperty.call(RFC9421_TEST_KEY_THUMBPRINTS, jwkOrThumbprint);
  if (typeof jwkOrThumbprint !== "object" || jwkOrThumbprint === null) throw new TypeError("expected a JWK or a thumbprint string");
  let thumbprint;
  try {
    thumbprint = jwkThumbprintSync(jwkOrThumbprint);
  } catch (error) {
    if (isBotsigError(error)) return false;
    throw error;
  }
  return Object.prototype.hasOwnProperty.call(RFC9421_TEST_KEY_THUMBPRINTS, thumbprint);
}

// ../head/src/profile/verify-request.ts
init_registry();
init_base2();
init_message();
init_signature_input();

// ../head/src/profile/verify/checks.ts
init_message();
init_components();

// ../head/src/profile/verify/result.ts
init_errors();
function finish2(d, outcome, error, skipped = false) {
  const r = { label: d.label, outcome, skipped, params: d.params, covered: d.covered };
  const { keyid, alg, tag } = d.params;
  if (keyid !== void 0) r.keyid = keyid;
  if (alg !== void 0) r.alg = alg;
  if (tag !== void 0) r.tag = tag;
  if (d.agent !== void 0) r.agent = d.agent;
  if (d.signatureAgent !== void 0) r.signatureAgent = d.signatureAgent;
  if (d.keySource !== void 0) r.keySource = d.keySource;
  if (d.delegation !== void 0) r.delegation = d.delegation;
  if (d.contentDigest !== void 0) r.contentDigest = d.contentDigest;
  if (error !== void 0) r.error = error;
  return r;
}
function fail2(d, outcome, code, message) {
  return finish2(d, outcome, { code, message });
}
function summarise(ctx, results, malformed, agentDiagnostics) {
  if (ctx.deadline !== void 0) clearTimeout(ctx.deadline.timer);
  let outcome = "unverified";
  let verified;
  for (const r of results) {
    if (r.outcome === "verified") {
      outcome = "verified";
      verified = r;
      break;
    }
    if (r.outcome === "invalid") outcome = "invalid";
  }
  const diagnostics = ctx.diagnostics === void 0 ? agentDiagnostics : [...agentDiagnostics, ...ctx.diagnostics];
  const result = { outcome, signatures: results, malformed, diagnostics };
  if (verified !== void 0) {
    if (verified.agent !== void 0) result.agent = verified.agent;
    if (verified.contentDigest !== void 0) result.contentDigest = verified.contentDigest;
    return result;
  }
  const explaining = results.find((r) => r.outcome === outcome && r.error !== void 0) ?? results.find((r) => r.error !== void 0);
  if (explaining?.error !== void 0) result.error = explaining.error;
  return result;
}
function toInfo(error, fallback) {
  if (isBotsigError(error)) return { code: error.code, message: error.message };
  return { code: fallback, message: error instanceof TypeError ? "malformed input" : "verification step failed" };
}
function requestResult(outcome, malformed, error, diagnostics) {
  return { outcome, signatures: [], malformed, error, diagnostics };
}

// ../head/src/profile/verify/state.ts
var NO_DIAGNOSTICS = Object.freeze([]);
var NO_STRINGS = Object.freeze([]);
var NO_PARAMS3 = Object.freeze({});
function isThenable(value) {
  return typeof value === "object" && value !== null && typeof value.then === "function";
}

// ../head/src/profile/verify/checks.ts
var MAX_AGENT_CANDIDATES = 4;
var NO_MEMBERS = Object.freeze([]);
function checkFreshness(d, params, ctx) {
  const p = ctx.p;
  const label = d.label;
  const { created, expires } = params;
  if (created === void 0) return fail2(d, "invalid", "ERR_CREATED_MISSING", `signature "${label}" has no created parameter`);
  if (expires === void 0) return fail2(d, "invalid", "ERR_EXPIRES_MISSING", `signature "${label}" has no expires parameter`);
  if (created > Math.ceil(ctx.nowMs / 1e3) + p.skewSeconds) {
    return fail2(d, "invalid", "ERR_CREATED_IN_FUTURE", `signature "${label}" was created in the future`);
  }
  if (expires < Math.floor(ctx.nowMs / 1e3) - p.skewSeconds) return fail2(d, "invalid", "ERR_SIGNATURE_EXPIRED", `signature "${label}" has expired`);
  if (expires < created) return fail2(d, "invalid", "ERR_PARAM_INVALID", `signature "${label}" expires before it was created`);
  if (expires - created > p.maxValiditySeconds) {
    return fail2(d, "invalid", "ERR_VALIDITY_TOO_LONG", `signature "${label}" is valid for longer than ${p.maxValiditySeconds} s`);
  }
  return void 0;
}
function taggedWebBotAuth(input) {
  if (input.view !== void 0) return input.view.tag === WEB_BOT_AUTH_TAG;
  const tag = input.params.get("tag");
  return tag !== void 0 && tag.type === "string" && tag.value === WEB_BOT_AUTH_TAG;
}
function authorityAllowed(ctx) {
  if (ctx.authorityAllowed === void 0) {
    let authority;
    try {
      authority = messageTarget(ctx.message).authority;
    } catch {
      authority = void 0;
    }
    ctx.authorityAllowed = authority !== void 0 && ctx.p.authorities.has(authority);
  }
  return ctx.authorityAllowed;
}
function coveredOf(input) {
  const n = input.components.length;
  if (n === 0) return NO_STRINGS;
  if (input.idTexts !== void 0) return input.idTexts;
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = serializeComponentIdentifier(input.components[i]);
  return out;
}
function checkCoverage(input, covered, ctx, strict) {
  const label = input.label;
  let authority = false;
  let targetUri2 = false;
  let coversSignature = false;
  for (const c of input.components) {
    if (c.name === "@authority") authority = true;
    else if (c.name === "@target-uri") targetUri2 = true;
    else if (c.name === "signature") coversSignature = true;
  }
  if (!authority && (strict || !targetUri2)) return `signature "${label}" covers neither @authority${strict ? "" : " nor @target-uri"}`;
  for (const required of ctx.p.required) {
    if (!covered.includes(required)) return `signature "${label}" does not cover ${required}`;
  }
  if (!coversSignature) return void 0;
  const have = new Set(covered);
  for (const c of input.components) {
    if (c.name !== "signature") continue;
    const key = c.params.get("key");
    if (key === void 0 || key.type !== "string") return `signature "${label}" covers the whole Signature field; cover one member with ;key`;
    const inner = ctx.entries.get(key.value)?.input;
    if (inner === void 0) return `signature "${label}" covers a signature that has no Signature-Input`;
    if (!have.has(serializeComponentIdentifier({ name: "signature-input", params: c.params }))) {
      return `signature "${label}" covers signature "${key.value}" but not its Signature-Input`;
    }
    for (const ic of inner.components) {
      if (!have.has(serializeComponentIdentifier(ic))) return `signature "${label}" covers signature "${key.value}" but not every component it covers`;
    }
  }
  return void 0;
}
function agentCandidates(input, header3) {
  let whole = false;
  let memberKey;
  let covers = false;
  for (const c of input.components) {
    if (c.name !== "signature-agent") continue;
    covers = true;
    const key = c.params.get("key");
    if (key === void 0) whole = true;
    else if (key.type === "string" && memberKey === void 0) memberKey = key.value;
  }
  if (header3 === void 0) return NO_MEMBERS;
  if (!covers) return void 0;
  const members = header3.members;
  if (members.length === 0) return NO_MEMBERS;
  if (memberKey !== void 0) {
    const m = memberByKey(header3, memberKey);
    if (m !== void 0) return [m];
    if (!whole) return NO_MEMBERS;
  }
  if (members.length === 1) return members;
  const ordered = [];
  if (header3.form === "dictionary") {
    for (const m of members) if (m.key === input.label) ordered.push(m);
  }
  for (const m of members) {
    if (ordered.length >= MAX_AGENT_CANDIDATES) break;
    if (ordered[0] !== m) ordered.push(m);
  }
  return ordered;
}
var MEMBER_INDEX_THRESHOLD = 8;
var memberIndexes = /* @__PURE__ */ new WeakMap();
function memberByKey(header3, key) {
  const members = header3.members;
  if (members.length <= MEMBER_INDEX_THRESHOLD) {
    for (const m of members) if (m.key === key) return m;
    return void 0;
  }
  let index = memberIndexes.get(header3);
  if (index === void 0) {
    index = /* @__PURE__ */ new Map();
    for (const m of members) if (m.key !== void 0 && !index.has(m.key)) index.set(m.key, m);
    memberIndexes.set(header3, index);
  }
  return index.get(key);
}

// ../head/src/profile/verify/content-digest.ts
init_message();
function coveredContentDigests(components) {
  let out;
  for (const c of components) if (c.name === "content-digest" && !c.params.has("req")) (out ??= []).push(c);
  return out;
}
function contentDigestRequired(ctx) {
  const rule = ctx.p.requireContentDigest;
  if (rule === void 0 || rule === false) return false;
  if (rule === true) return true;
  if (ctx.contentDigestRequired === void 0) ctx.contentDigestRequired = rule(requestInfo(ctx)) === true;
  return ctx.contentDigestRequired;
}
function requestInfo(ctx) {
  const m = ctx.message;
  const method = m.method ?? "GET";
  let path = "/";
  if (m.url !== void 0) {
    try {
      path = messageTarget(m).path;
    } catch {
      path = "/";
    }
  } else if (m.target !== void 0 && m.target.charCodeAt(0) === 47) {
    const q = m.target.indexOf("?");
    path = q < 0 ? m.target : m.target.slice(0, q);
  }
  return m.url === void 0 ? { method, path } : { method, path, url: m.url };
}
var checkModule;
function loadContentDigestCheck() {
  if (checkModule === void 0) {
    const loading = Promise.resolve().then(() => (init_check(), check_exports));
    checkModule = loading;
    loading.catch(() => {
      if (checkModule === loading) checkModule = void 0;
    });
  }
  return checkModule;
}
async function checkCoveredContentDigest(ctx, d, covered) {
  const check2 = await loadContentDigestCheck();
  ctx.body ??= check2.loadBody(ctx.input, ctx.p.maxBodyBytes);
  const result = await check2.checkContentDigest(ctx.message, covered, ctx.body);
  d.contentDigest = result;
  const error = result.error;
  if (result.status === "failed" && error !== void 0) {
    return fail2(d, "invalid", error.code, `the Content-Digest covered by signature "${d.label}" is not the content's: ${error.message}`);
  }
  if (result.status === "unchecked" && error !== void 0 && (error.code !== "ERR_BODY_UNAVAILABLE" || contentDigestRequired(ctx))) {
    return fail2(d, "unverified", error.code, `the Content-Digest covered by signature "${d.label}" was not checked: ${error.message}`);
  }
  return void 0;
}

// ../head/src/profile/verify/discovery.ts
init_errors();
init_keys();
async function findKey(ctx, label, keyid, alg, candidates, from = 0) {
  const options = ctx.options;
  const first = candidates[0];
  if (options.resolveKey !== void 0) {
    const lookup2 = { keyid, label, ...alg === void 0 ? {} : { alg }, ...first === void 0 ? {} : { signatureAgent: first } };
    const resolved = await options.resolveKey(lookup2);
    if (resolved !== void 0 && resolved !== null) {
      const { key, agent } = await fromResolved(resolved);
      if (key.thumbprint === keyid) return { key, agent: agent ?? key.thumbprint, source: "resolver" };
    }
  }
  const directory = options.directory;
  if (directory === void 0 || first === void 0) return void 0;
  let failure2;
  for (let i = from; i < candidates.length; i++) {
    const member = candidates[i];
    let resolution;
    try {
      resolution = await lookup(ctx, directory, member);
    } catch (error) {
      failure2 ??= error;
      continue;
    }
    const found = keyIn(ctx, resolution, keyid, member);
    if (found !== void 0) return found;
  }
  if (failure2 !== void 0) {
    const first2 = failure2;
    throw first2;
  }
  return void 0;
}
var Pending = class {
  constructor(from) {
    this.from = from;
  }
};
var FROM_START = new Pending(0);
function findKeyNow(ctx, keyid, candidates) {
  const options = ctx.options;
  if (options.resolveKey !== void 0) return FROM_START;
  const directory = options.directory;
  if (directory === void 0 || candidates.length === 0) return void 0;
  if (directory.resolveFresh === void 0) return FROM_START;
  for (let i = 0; i < candidates.length; i++) {
    const member = candidates[i];
    const resolution = freshLookup(ctx, directory, member);
    if (resolution === void 0) return i === 0 ? FROM_START : new Pending(i);
    const found = keyIn(ctx, resolution, keyid, member);
    if (found !== void 0) return found;
  }
  return void 0;
}
function freshLookup(ctx, directory, member) {
  const id = member.type + " " + member.url;
  const known = ctx.lookups?.get(id);
  if (known !== void 0) return isThenable(known) ? void 0 : known;
  if (ctx.deadline?.passed === true || (ctx.lookups?.size ?? 0) >= ctx.p.maxDirectories) return void 0;
  let resolution;
  try {
    resolution = directory.resolveFresh(member);
  } catch {
    return void 0;
  }
  if (resolution === void 0 || resolution === null || typeof resolution !== "object") return void 0;
  (ctx.lookups ??= /* @__PURE__ */ new Map()).set(id, resolution);
  return resolution;
}
function keyIn(ctx, resolution, keyid, member) {
  if (resolution.diagnostics.length > 0) (ctx.diagnostics ??= []).push(...resolution.diagnostics);
  for (const entry of resolution.keys) {
    if (entry.thumbprint === keyid) {
      const delegation = entry.delegation;
      return { key: entry.key, agent: entry.agent ?? resolution.url, source: "directory", member, ...delegation === void 0 ? {} : { delegation } };
    }
  }
  return void 0;
}
function lookup(ctx, directory, member) {
  const lookups = ctx.lookups ??= /* @__PURE__ */ new Map();
  const id = member.type + " " + member.url;
  const known = lookups.get(id);
  if (known !== void 0) return known;
  if (ctx.deadline?.passed === true) {
    return Promise.reject(new BotsigError("ERR_DISCOVERY_BUDGET", `key discovery for this request passed its ${ctx.p.discoveryTimeoutMs} ms deadline`));
  }
  if (lookups.size >= ctx.p.maxDirectories) {
    return Promise.reject(
      new BotsigError("ERR_DISCOVERY_BUDGET", `this request names more than ${ctx.p.maxDirectories} key directories; the rest are not looked up`)
    );
  }
  const deadline = ctx.deadline ??= startDeadline(ctx.p.discoveryTimeoutMs);
  let pending;
  try {
    pending = Promise.race([directory.resolve(member), deadline.expired]);
  } catch (error) {
    pending = Promise.reject(error);
  }
  lookups.set(id, pending);
  return pending;
}
function startDeadline(ms) {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => {
      deadline.passed = true;
      reject(new BotsigError("ERR_DISCOVERY_BUDGET", `key discovery for this request passed its ${ms} ms deadline`));
    }, ms);
  });
  expired.catch(() => void 0);
  const deadline = { expired, timer, passed: false };
  return deadline;
}
async function fromResolved(resolved) {
  if (isVerifyingKey(resolved)) return { key: resolved };
  if (typeof resolved === "object" && "key" in resolved && !("kty" in resolved)) {
    const r = resolved;
    const key = isVerifyingKey(r.key) ? r.key : await importVerifyingKey(r.key);
    return typeof r.agent === "string" ? { key, agent: r.agent } : { key };
  }
  return { key: await importVerifyingKey(resolved) };
}

// ../head/src/profile/verify/nonce.ts
init_errors();
function checkNonceParam(d, params, p) {
  if (p.policy === "required" && params.nonce === void 0) return fail2(d, "invalid", "ERR_NONCE_MISSING", `signature "${d.label}" has no nonce`);
  if (p.policy !== "none" && params.nonce !== void 0 && params.nonce.length > p.maxNonceLength) {
    return fail2(d, "invalid", "ERR_NONCE_TOO_LONG", `the nonce of signature "${d.label}" is longer than ${p.maxNonceLength} characters`);
  }
  return void 0;
}
function recordNonce(ctx, d, nonce, expires) {
  const p = ctx.p;
  if (p.policy === "none" || nonce === void 0) return finish2(d, "verified");
  let fresh2;
  try {
    fresh2 = p.store.checkAndRecord(d.agent, nonce, (expires + p.skewSeconds + 1) * 1e3, ctx.nowMs);
  } catch (error) {
    fresh2 = error;
  }
  if (isThenable(fresh2)) {
    return Promise.resolve(fresh2).then(
      (v) => withNonce(d, v),
      (error) => withNonce(d, error)
    );
  }
  return withNonce(d, fresh2);
}
function withNonce(d, fresh2) {
  if (typeof fresh2 !== "boolean") {
    if (isBotsigError(fresh2) && (fresh2.code === "ERR_NONCE_QUOTA_EXCEEDED" || fresh2.code === "ERR_NONCE_TOO_LONG")) {
      return fail2(d, fresh2.code === "ERR_NONCE_TOO_LONG" ? "invalid" : "unverified", fresh2.code, fresh2.message);
    }
    return fail2(d, "unverified", "ERR_NONCE_STORE_UNAVAILABLE", "the nonce store could not be consulted; the nonce is unchecked");
  }
  if (!fresh2) return fail2(d, "invalid", "ERR_NONCE_REPLAYED", `the nonce of signature "${d.label}" was already used`);
  return finish2(d, "verified");
}

// ../head/src/profile/verify/options.ts
init_options();
init_time();
init_keys();
init_registry();
init_components();
init_message();

// ../head/src/profile/key-check.ts
init_base64();
init_registry();
var CURVE_BYTES = { "P-256": 32, "P-384": 48 };
function publicJwkProblem(jwk) {
  if (typeof jwk !== "object" || jwk === null) return "is not an object";
  const { kty, crv } = jwk;
  if (typeof kty !== "string") return "has no kty";
  if (jwk.d !== void 0 || jwk.p !== void 0 || jwk.q !== void 0) return "is a private key; configure the public key only";
  switch (kty) {
    case "OKP": {
      if (crv !== "Ed25519") return `has curve ${JSON.stringify(crv)}; only Ed25519 OKP keys can verify`;
      if (decodedLength(jwk.x) !== 32) return "has an x member that is not 32 base64url-encoded bytes";
      break;
    }
    case "EC": {
      const size = typeof crv === "string" ? CURVE_BYTES[crv] : void 0;
      if (size === void 0) return `has curve ${JSON.stringify(crv)}; only P-256 and P-384 EC keys can verify`;
      if (decodedLength(jwk.x) !== size || decodedLength(jwk.y) !== size) return `has x and y members that are not ${size} base64url-encoded bytes each`;
      break;
    }
    case "RSA": {
      const n = decodedLength(jwk.n);
      if (n === void 0 || n < 256) return "has no RSA modulus of at least 2048 bits";
      const e = decodedLength(jwk.e);
      if (e === void 0 || e === 0 || e > 8) return "has no valid RSA public exponent";
      break;
    }
    default:
      return `has key type ${JSON.stringify(kty)}; only OKP, EC and RSA keys can verify`;
  }
  if (jwk.alg !== void 0) {
    const alg = jwkAlgToAlgorithmName(jwk.alg);
    if (alg === void 0) return `has an alg (${JSON.stringify(jwk.alg)}) that is neither an RFC 9421 nor a JOSE signature algorithm name`;
    if (!jwkFitsAlgorithm(jwk, alg)) return `has alg ${alg}, which does not fit a ${kty} key${typeof crv === "string" ? ` on curve ${crv}` : ""}`;
  }
  return void 0;
}
function decodedLength(member) {
  if (typeof member !== "string" || member.length === 0) return void 0;
  return base64UrlDecode(member)?.length;
}

// ../head/src/profile/memory-nonce-store.ts
init_errors();
init_time();

// ../head/src/profile/nonce-store.ts
var DEFAULT_NONCE_STORE_MAX_ENTRIES = 1e5;
var DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE = 1e4;
var DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH = 512;
var DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH = 2048;

// ../head/src/profile/memory-nonce-store.ts
var ScopeState = class {
  constructor(name) {
    this.name = name;
  }
  /** nonce → expiry (ms). Empty while suspended. */
  nonces = /* @__PURE__ */ new Map();
  /** True while the scope is shed: its nonces were dropped and it may record nothing. */
  suspended = false;
  /** While suspended: when the suspension ends (the latest expiry among the dropped nonces). */
  suspendedUntil = 0;
  prev = null;
  next = null;
};
function positiveInteger(value, name, fallback) {
  if (value === void 0) return fallback;
  if (typeof value !== "number") throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
var MemoryNonceStore = class {
  #max;
  #perScope;
  #maxNonce;
  #maxScope;
  #now;
  /**
   * scope → its state, holding nonce → expiry (ms). Two levels rather than one
   * concatenated key: the verifier hands the same scope string for every request of
   * an agent, and a nonce string is hashed once, so a check builds no string at all.
   */
  #scopes = /* @__PURE__ */ new Map();
  /** Entries held: unexpired nonces plus one marker per suspended scope. */
  #size = 0;
  /** Heap slots of nonces dropped by shedding, still waiting to surface (or to be compacted away). */
  #stale = 0;
  /**
   * `#buckets[c]`: the head of the list of unsuspended scopes holding exactly `c`
   * nonces (index 0 unused); `#maxCount`: the largest `c` with a non-empty list,
   * 0 when there is none.
   */
  #buckets = [null, null];
  #maxCount = 0;
  // Min-heap of (expiry, scope, nonce), parallel arrays to avoid one object per
  // entry; nonce `null` is a suspension marker. Every entry has exactly one heap
  // slot. Shedding leaves the slots of the nonces it drops in the heap ("stale");
  // they are recognised when they surface (their scope is suspended or gone) and
  // compacted away once they outnumber the entries. All of a shed scope's stale
  // slots expire no later than its marker, so they have all surfaced before the
  // scope can record anything again: a live scope never has stale slots.
  #heapExpiry = [];
  #heapScope = [];
  #heapNonce = [];
  /**
   * @throws TypeError when an option has the wrong type.
   * @throws RangeError when `maxEntries`, `maxEntriesPerScope`, `maxNonceLength` or
   *   `maxScopeLength` is not a positive integer, or `maxEntriesPerScope` exceeds `maxEntries`.
   */
  constructor(options = {}) {
    if (typeof options !== "object" || options === null) throw new TypeError("MemoryNonceStore options must be an object");
    const max = positiveInteger(options.maxEntries, "maxEntries", DEFAULT_NONCE_STORE_MAX_ENTRIES);
    const perScope = positiveInteger(options.maxEntriesPerScope, "maxEntriesPerScope", Math.min(DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE, max));
    if (perScope > max) throw new RangeError("maxEntriesPerScope must not exceed maxEntries");
    if (options.now !== void 0 && typeof options.now !== "function") throw new TypeError("now must be a function");
    this.#max = max;
    this.#perScope = perScope;
    this.#maxNonce = positiveInteger(options.maxNonceLength, "maxNonceLength", DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH);
    this.#maxScope = positiveInteger(options.maxScopeLength, "maxScopeLength", DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH);
    this.#now = options.now ?? systemClock;
  }
  /**
   * Entries currently held: unexpired nonces plus one per suspended scope (expired
   * ones may linger until the next call). Never more than `maxEntries`.
   */
  get size() {
    return this.#size;
  }
  /** Scopes currently holding entries (suspended ones included). */
  get scopeCount() {
    return this.#scopes.size;
  }
  /** Nonces `scope` holds, as of the last call (0 for an unknown or suspended scope). */
  heldBy(scope) {
    const state = this.#scopes.get(scope);
    return state === void 0 ? 0 : state.nonces.size;
  }
  /** When `scope`'s suspension ends (ms), or `undefined` when it is not suspended, as of the last call. */
  suspendedUntil(scope) {
    const state = this.#scopes.get(scope);
    return state !== void 0 && state.suspended ? state.suspendedUntil : void 0;
  }
  /**
   * Records `nonce` in `scope` until `expiresAtMs`; `true` when it was not already
   * recorded and unexpired, `false` for a replay. A nonce whose expiry is not after
   * `nowMs` is accepted and not remembered.
   *
   * @throws BotsigError `ERR_NONCE_TOO_LONG` when `nonce` is longer than `maxNonceLength`.
   * @throws BotsigError `ERR_NONCE_QUOTA_EXCEEDED` when `scope` holds
   *   `maxEntriesPerScope` nonces, is suspended (shed), or is among the largest
   *   scopes of a full store.
   * @throws BotsigError `ERR_NONCE_STORE_UNAVAILABLE` when the store is full and no
   *   scope can be shed, or `scope` is longer than `maxScopeLength` (fail closed).
   * @throws TypeError for arguments of the wrong type.
   */
  checkAndRecord(scope, nonce, expiresAtMs, nowMs = this.#now()) {
    if (typeof scope !== "string" || typeof nonce !== "string") throw new TypeError("scope and nonce must be strings");
    if (typeof expiresAtMs !== "number" || Number.isNaN(expiresAtMs) || typeof nowMs !== "number" || Number.isNaN(nowMs)) {
      throw new TypeError("expiresAtMs and nowMs must be numbers");
    }
    if (nonce.length > this.#maxNonce) throw new BotsigError("ERR_NONCE_TOO_LONG", `the nonce is longer than ${this.#maxNonce} characters`);
    if (scope.length > this.#maxScope) {
      throw new BotsigError("ERR_NONCE_STORE_UNAVAILABLE", `the nonce scope is longer than ${this.#maxScope} characters`);
    }
    this.#expire(nowMs);
    let state = this.#scopes.get(scope);
    let held = 0;
    if (state !== void 0) {
      if (state.suspended)
        throw new BotsigError("ERR_NONCE_QUOTA_EXCEEDED", "this agent was shed from the full nonce store and is suspended until its nonces expire");
      if (state.nonces.has(nonce)) return false;
      held = state.nonces.size;
    }
    if (expiresAtMs <= nowMs) return true;
    if (held >= this.#perScope) throw new BotsigError("ERR_NONCE_QUOTA_EXCEEDED", `this agent already holds ${this.#perScope} unexpired nonces`);
    if (this.#size >= this.#max) this.#makeRoom(held);
    if (state === void 0) {
      state = new ScopeState(scope);
      this.#scopes.set(scope, state);
    }
    state.nonces.set(nonce, expiresAtMs);
    this.#size++;
    this.#moveUp(state, held);
    this.#push(expiresAtMs, scope, nonce);
    return true;
  }
  /** The store is full and a scope holding `held` nonces brings one more: shed a larger scope, or throw. */
  #makeRoom(held) {
    const top = this.#maxCount;
    if (top > held + 1) {
      this.#shed(this.#buckets[top]);
      return;
    }
    if (top > 1) {
      throw new BotsigError("ERR_NONCE_QUOTA_EXCEEDED", "the nonce store is full and this agent is among those holding the most nonces");
    }
    throw new BotsigError("ERR_NONCE_STORE_UNAVAILABLE", "the nonce store is full of agents holding one nonce each");
  }
  /** Drops every nonce of `state` for one suspension marker lasting until the latest of their expiries. */
  #shed(state) {
    const count = state.nonces.size;
    let until = Number.NEGATIVE_INFINITY;
    for (const expiry of state.nonces.values()) if (expiry > until) until = expiry;
    this.#unlink(state, count);
    this.#lowerMax();
    state.nonces.clear();
    state.suspended = true;
    state.suspendedUntil = until;
    this.#size -= count - 1;
    this.#stale += count;
    this.#push(until, state.name, null);
    if (this.#stale > this.#size) this.#compact();
  }
  /** Drops every entry whose expiry is at or before `now`, and scopes left empty. */
  #expire(now) {
    const exp = this.#heapExpiry;
    while (exp.length > 0 && exp[0] <= now) {
      const expiry = exp[0];
      const scope = this.#heapScope[0];
      const nonce = this.#heapNonce[0];
      this.#pop();
      const state = this.#scopes.get(scope);
      if (nonce === null) {
        if (state !== void 0 && state.suspended && state.suspendedUntil === expiry) {
          this.#scopes.delete(scope);
          this.#size--;
        } else this.#stale--;
      } else if (state !== void 0 && !state.suspended && state.nonces.delete(nonce)) {
        const held = state.nonces.size;
        this.#size--;
        this.#unlink(state, held + 1);
        if (held > 0) this.#link(state, held);
        else this.#scopes.delete(scope);
        this.#lowerMax();
      } else {
        this.#stale--;
      }
    }
  }
  /** Rebuilds the heap without its stale slots: O(n), once stale slots outnumber entries. */
  #compact() {
    const exp = this.#heapExpiry;
    const scopes = this.#heapScope;
    const nonces = this.#heapNonce;
    const n = exp.length;
    let j = 0;
    for (let i = 0; i < n; i++) {
      const nonce = nonces[i];
      const state = this.#scopes.get(scopes[i]);
      const live = state !== void 0 && (nonce === null ? state.suspended && state.suspendedUntil === exp[i] : !state.suspended && state.nonces.has(nonce));
      if (!live) continue;
      exp[j] = exp[i];
      scopes[j] = scopes[i];
      nonces[j] = nonce;
      j++;
    }
    exp.length = j;
    scopes.length = j;
    nonces.length = j;
    this.#stale = 0;
    for (let i = (j >> 1) - 1; i >= 0; i--) this.#siftDown(i, exp[i], scopes[i], nonces[i]);
  }
  // -- per-scope counts: one list of scopes per count -------------------------
  #link(state, count) {
    const buckets = this.#buckets;
    if (count === buckets.length) buckets.push(null);
    const head = buckets[count];
    state.prev = null;
    state.next = head;
    if (head !== null) head.prev = state;
    buckets[count] = state;
    if (count > this.#maxCount) this.#maxCount = count;
  }
  #unlink(state, count) {
    const { prev, next } = state;
    if (prev !== null) prev.next = next;
    else this.#buckets[count] = next;
    if (next !== null) next.prev = prev;
    state.prev = null;
    state.next = null;
  }
  /** `state` went from `held` nonces to `held + 1`. */
  #moveUp(state, held) {
    if (held > 0) this.#unlink(state, held);
    this.#link(state, held + 1);
  }
  /** Lowers `#maxCount` past empty lists. Amortised O(1): it only comes down as far as increments took it up. */
  #lowerMax() {
    const buckets = this.#buckets;
    let top = this.#maxCount;
    while (top > 0 && buckets[top] === null) top--;
    this.#maxCount = top;
  }
  // -- the heap ---------------------------------------------------------------
  #push(expiry, scope, nonce) {
    const exp = this.#heapExpiry;
    const scopes = this.#heapScope;
    const nonces = this.#heapNonce;
    let i = exp.length;
    exp.push(expiry);
    scopes.push(scope);
    nonces.push(nonce);
    while (i > 0) {
      const parent = i - 1 >> 1;
      if (exp[parent] <= expiry) break;
      exp[i] = exp[parent];
      scopes[i] = scopes[parent];
      nonces[i] = nonces[parent];
      i = parent;
    }
    exp[i] = expiry;
    scopes[i] = scope;
    nonces[i] = nonce;
  }
  #pop() {
    const exp = this.#heapExpiry;
    const lastExpiry = exp.pop();
    const lastScope = this.#heapScope.pop();
    const lastNonce = this.#heapNonce.pop();
    if (exp.length > 0) this.#siftDown(0, lastExpiry, lastScope, lastNonce);
  }
  /** Places (expiry, scope, nonce) at slot `i` or below, moving smaller children up. */
  #siftDown(i, expiry, scope, nonce) {
    const exp = this.#heapExpiry;
    const scopes = this.#heapScope;
    const nonces = this.#heapNonce;
    const n = exp.length;
    for (; ; ) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && exp[r] < exp[l] ? r : l;
      if (exp[c] >= expiry) break;
      exp[i] = exp[c];
      scopes[i] = scopes[c];
      nonces[i] = nonces[c];
      i = c;
    }
    exp[i] = expiry;
    scopes[i] = scope;
    nonces[i] = nonce;
  }
};

// ../head/src/profile/verify/agent-cache.ts
init_bounded_map();
init_signature_agent();
var AGENT_CACHE_MAX_ENTRIES = 256;
var AGENT_CACHE_MAX_CHARS = 4096;
var AgentCache = class {
  options;
  /** Made on the first miss: options that never see a Signature-Agent allocate nothing. */
  parsed = void 0;
  // The last single-line value and its parse, checked before the map (no key to build).
  lastLine = void 0;
  lastParsed = void 0;
  constructor(options) {
    this.options = options;
  }
  /** The parse of a Signature-Agent field given as its lines (frozen when cached). */
  get(lines) {
    const single = lines.length === 1 ? lines[0] : void 0;
    if (single !== void 0 && single === this.lastLine) return this.lastParsed;
    const key = single !== void 0 ? "1" + single : "n" + JSON.stringify(lines);
    const cache = this.parsed ??= new BoundedMap(AGENT_CACHE_MAX_ENTRIES);
    const hit = cache.get(key);
    if (hit !== void 0) {
      if (single !== void 0) this.remember(single, hit);
      return hit;
    }
    const parsed = parseSignatureAgent(lines, this.options);
    if (key.length > AGENT_CACHE_MAX_CHARS) return parsed;
    for (const m of parsed.members) {
      if (m.inline !== void 0) Object.freeze(m.inline);
      Object.freeze(m);
    }
    for (const d of parsed.diagnostics) Object.freeze(d);
    const frozen = Object.freeze({
      ...parsed,
      members: Object.freeze(parsed.members),
      diagnostics: Object.freeze(parsed.diagnostics)
    });
    cache.set(key, frozen);
    if (single !== void 0) this.remember(single, frozen);
    return frozen;
  }
  remember(line, parsed) {
    this.lastLine = line;
    this.lastParsed = parsed;
  }
};

// ../head/src/profile/verify/verified-memo.ts
init_bounded_map();
init_objects();
var DEFAULT_VERIFIED_MEMO_MAX_ENTRIES = 1024;
var MAX_VERIFIED_MEMO_ENTRIES = 1e6;
var VERIFIED_MEMO_MAX_BASE_LENGTH = 4096;
var VerifiedMemo = class {
  #max;
  /** Made on the first success: options that never see a reusable signature allocate nothing. */
  #entries = void 0;
  /** @param maxEntries most entries kept (checked by the options). */
  constructor(maxEntries) {
    this.#max = maxEntries;
  }
  get size() {
    return this.#entries?.size ?? 0;
  }
  /** True when `signature` over `base` verified with this key (or the same key) before. */
  has(key, base, signature) {
    const e = this.#entries?.get(slot(signature));
    return e !== void 0 && sameBytes(e.signature, signature) && e.base === base && sameKey(e.key, key);
  }
  /** Remembers a successful verification. */
  remember(key, base, signature) {
    if (base.length > VERIFIED_MEMO_MAX_BASE_LENGTH) return;
    (this.#entries ??= new BoundedMap(this.#max)).set(slot(signature), { key, base, signature: signature.slice() });
  }
};
function slot(s) {
  return s[0] | s[1] << 8 | s[2] << 16 | (s[3] & 63) << 24;
}
function sameBytes(a, b) {
  const n = a.length;
  if (b.length !== n) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
function sameKey(a, b) {
  if (a === b) return true;
  if (a.alg !== b.alg) return false;
  const fa = verifyInternals.get(a)?.fn;
  return fa !== void 0 && fa === verifyInternals.get(b)?.fn;
}

// ../head/src/profile/verify/options.ts
var DEFAULT_SKEW_SECONDS = 60;
var DEFAULT_MAX_VALIDITY_SECONDS = 86400;
var DEFAULT_MAX_NONCE_LENGTH = 256;
var DEFAULT_MAX_DIRECTORIES = 4;
var DEFAULT_MAX_SIGNATURES = 16;
var DEFAULT_DISCOVERY_TIMEOUT_MS = 5e3;
var DEFAULT_VERIFY_MAX_BODY_BYTES = 1024 * 1024;
var DEFAULT_ALGORITHMS = new Set(ALGORITHMS);
var preparedByOptions = /* @__PURE__ */ new WeakMap();
var staticKeysByArray = /* @__PURE__ */ new WeakMap();
var VERIFY_OPTION_NAMES = [
  "keys",
  "resolveKey",
  "directory",
  "nonce",
  "now",
  "clockSkewSeconds",
  "maxValiditySeconds",
  "requiredComponents",
  "strictAuthority",
  "algorithms",
  "allowInsecure",
  "allowTestKeys",
  "allowHttpSignatureAgent",
  "label",
  "authorities",
  "discovery",
  "maxSignatures",
  "verifiedSignatureMemo",
  "requireContentDigest",
  "maxBodyBytes"
];
var NONCE_OPTION_NAMES = ["policy", "store", "maxLength"];
var DISCOVERY_OPTION_NAMES = ["maxDirectories", "timeoutMs"];
var VERIFIED_MEMO_OPTION_NAMES = ["maxEntries"];
function prepareVerifyOptions(options) {
  prepare2(options);
}
function prepare2(options) {
  const cached = preparedByOptions.get(options);
  if (cached !== void 0) return cached;
  if (typeof options !== "object" || options === null) throw new TypeError("verifyRequest options must be an object");
  checkOptionNames(options, VERIFY_OPTION_NAMES, "verifyRequest options");
  const { keys, resolveKey, directory, nonce, now, clockSkewSeconds, maxValiditySeconds, requiredComponents, algorithms } = options;
  if (nonce !== void 0) {
    if (typeof nonce !== "object" || nonce === null) throw new TypeError("options.nonce must be an object");
    checkOptionNames(nonce, NONCE_OPTION_NAMES, "options.nonce");
  }
  if (options.discovery !== void 0 && typeof options.discovery === "object" && options.discovery !== null) {
    checkOptionNames(options.discovery, DISCOVERY_OPTION_NAMES, "options.discovery");
  }
  let pendingKeys;
  if (keys !== void 0) {
    if (!Array.isArray(keys)) throw new TypeError("options.keys must be an array of JWKs or verifying keys");
    keys.forEach((k, i) => {
      if (isVerifyingKey(k)) return;
      const problem = publicJwkProblem(k);
      if (problem !== void 0) throw new TypeError(`options.keys[${i}] ${problem}`);
    });
    pendingKeys = staticKeysByArray.get(keys);
    if (pendingKeys === void 0) {
      pendingKeys = Promise.all(keys.map((k) => importVerifyingKey(k))).then(
        (list) => new Map(list.map((key) => [key.thumbprint, Object.freeze({ key, agent: key.thumbprint, source: "static" })]))
      );
      pendingKeys.catch(() => void 0);
      staticKeysByArray.set(keys, pendingKeys);
    }
  }
  if (resolveKey !== void 0 && typeof resolveKey !== "function") throw new TypeError("options.resolveKey must be a function");
  if (directory !== void 0 && (typeof directory !== "object" || directory === null || typeof directory.resolve !== "function")) {
    throw new TypeError("options.directory must have a resolve(member) method");
  }
  if (now !== void 0 && typeof now !== "function") throw new TypeError("options.now must be a function returning milliseconds");
  const skewSeconds = clockSkewSeconds ?? DEFAULT_SKEW_SECONDS;
  if (typeof skewSeconds !== "number" || !Number.isFinite(skewSeconds) || skewSeconds < 0) {
    throw new TypeError("options.clockSkewSeconds must be a non-negative number");
  }
  const maxValidity = maxValiditySeconds ?? DEFAULT_MAX_VALIDITY_SECONDS;
  if (typeof maxValidity !== "number" || Number.isNaN(maxValidity) || maxValidity <= 0) {
    throw new TypeError("options.maxValiditySeconds must be a positive number");
  }
  const policy = nonce?.policy ?? "optional";
  if (policy !== "none" && policy !== "optional" && policy !== "required") throw new TypeError("options.nonce.policy must be none, optional or required");
  const store = nonce?.store ?? new MemoryNonceStore(now === void 0 ? {} : { now });
  const maxNonceLength = nonce?.maxLength ?? DEFAULT_MAX_NONCE_LENGTH;
  if (!Number.isSafeInteger(maxNonceLength) || maxNonceLength < 1) throw new TypeError("options.nonce.maxLength must be a positive integer");
  const discovery = options.discovery ?? {};
  if (typeof discovery !== "object" || discovery === null) throw new TypeError("options.discovery must be an object");
  const maxSignatures = options.maxSignatures ?? DEFAULT_MAX_SIGNATURES;
  if (!Number.isSafeInteger(maxSignatures) || maxSignatures < 1 || maxSignatures > 1e5) {
    throw new TypeError("options.maxSignatures must be an integer from 1 to 100,000");
  }
  const maxDirectories = discovery.maxDirectories ?? DEFAULT_MAX_DIRECTORIES;
  if (!Number.isSafeInteger(maxDirectories) || maxDirectories < 0 || maxDirectories > 64) {
    throw new TypeError("options.discovery.maxDirectories must be an integer from 0 to 64");
  }
  const discoveryTimeoutMs = discovery.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  if (!Number.isSafeInteger(discoveryTimeoutMs) || discoveryTimeoutMs < 1 || discoveryTimeoutMs > 3e5) {
    throw new TypeError("options.discovery.timeoutMs must be an integer number of milliseconds from 1 to 300,000");
  }
  if (typeof store !== "object" || store === null || typeof store.checkAndRecord !== "function") {
    throw new TypeError("options.nonce.store must have a checkAndRecord method");
  }
  let algorithmSet = DEFAULT_ALGORITHMS;
  if (algorithms !== void 0) {
    if (!Array.isArray(algorithms) || !algorithms.every(isAlgorithmName)) throw new TypeError("options.algorithms must list RFC 9421 algorithm names");
    algorithmSet = new Set(algorithms);
  }
  let required = NO_STRINGS;
  if (requiredComponents !== void 0) {
    if (!Array.isArray(requiredComponents)) throw new TypeError("options.requiredComponents must be an array of component identifiers");
    required = requiredComponents.map((text) => {
      try {
        return serializeComponentIdentifier(parseComponentIdentifier(text));
      } catch (error) {
        throw new TypeError("options.requiredComponents has an invalid component identifier", { cause: error });
      }
    });
  }
  const prepared = {
    staticKeys: void 0,
    pendingKeys,
    algorithms: algorithmSet,
    required,
    skewSeconds,
    maxValiditySeconds: maxValidity,
    policy,
    store,
    maxNonceLength,
    authorities: prepareAuthorities(options.authorities),
    maxDirectories,
    maxSignatures,
    discoveryTimeoutMs,
    now: now ?? systemClock,
    agents: new AgentCache({ allowHttp: options.allowHttpSignatureAgent === true }),
    verifiedMemo: prepareVerifiedMemo(options.verifiedSignatureMemo),
    requireContentDigest: checkContentDigestRequirement(options.requireContentDigest),
    maxBodyBytes: checkMaxBodyBytes2(options.maxBodyBytes)
  };
  preparedByOptions.set(options, prepared);
  return prepared;
}
async function loadStaticKeys(prepared) {
  try {
    prepared.staticKeys = await prepared.pendingKeys;
  } catch (error) {
    throw new TypeError("options.keys: a key cannot be imported", { cause: error });
  }
}
function checkContentDigestRequirement(value) {
  if (value === void 0 || value === false) return void 0;
  if (value === true || typeof value === "function") return value;
  throw new TypeError("options.requireContentDigest must be a boolean or a function (request) => boolean");
}
function checkMaxBodyBytes2(value) {
  if (value === void 0) return DEFAULT_VERIFY_MAX_BODY_BYTES;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw new TypeError("options.maxBodyBytes must be a non-negative integer");
  return value;
}
function prepareVerifiedMemo(option) {
  if (option === false) return void 0;
  if (option === void 0) return new VerifiedMemo(DEFAULT_VERIFIED_MEMO_MAX_ENTRIES);
  if (typeof option !== "object" || option === null) throw new TypeError("options.verifiedSignatureMemo must be an object or false");
  checkOptionNames(option, VERIFIED_MEMO_OPTION_NAMES, "options.verifiedSignatureMemo");
  const maxEntries = option.maxEntries ?? DEFAULT_VERIFIED_MEMO_MAX_ENTRIES;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_VERIFIED_MEMO_ENTRIES) {
    throw new TypeError("options.verifiedSignatureMemo.maxEntries must be an integer from 1 to 1,000,000");
  }
  return new VerifiedMemo(maxEntries);
}
function prepareAuthorities(list) {
  if (list === void 0) return void 0;
  if (!Array.isArray(list) || list.length === 0) throw new TypeError("options.authorities must be a non-empty array of host or host:port strings");
  const out = /* @__PURE__ */ new Set();
  for (const entry of list) {
    const https = typeof entry === "string" && /^[^/?#@\\\s]+$/.test(entry) ? parseTargetUri(`https://${entry}/`) : void 0;
    const http = https === void 0 ? void 0 : parseTargetUri(`http://${entry}/`);
    if (https === void 0 || http === void 0 || https.path !== "/") {
      throw new TypeError(`options.authorities: ${JSON.stringify(entry)} is not a host or host:port`);
    }
    out.add(https.authority);
    out.add(http.authority);
  }
  return out;
}

// ../head/src/profile/verify-request.ts
var DEFAULT_OPTIONS = Object.freeze({});
async function verifyRequest(request, options = DEFAULT_OPTIONS) {
  if (typeof request !== "object" || request === null) throw new TypeError("verifyRequest expects a Request or a { method, url, headers } object");
  const prepared = prepare2(options);
  if (prepared.staticKeys === void 0 && prepared.pendingKeys !== void 0) await loadStaticKeys(prepared);
  try {
    const result = verify2(request, options, prepared);
    return isThenable(result) ? await result : result;
  } catch (error) {
    return requestResult("unverified", false, toInfo(error, "ERR_INTERNAL"), NO_DIAGNOSTICS);
  }
}
function verify2(request, options, p) {
  let message;
  try {
    message = toReceivedMessage(request);
  } catch (error) {
    return requestResult("unverified", false, toInfo(error, "ERR_MESSAGE_INVALID"), NO_DIAGNOSTICS);
  }
  let entries;
  try {
    entries = readSignaturesWithTexts(message);
  } catch (error) {
    return requestResult("invalid", true, toInfo(error, "ERR_SIGNATURE_INPUT_PARSE"), NO_DIAGNOSTICS);
  }
  if (entries.size === 0) {
    return requestResult("unverified", false, { code: "ERR_NO_SIGNATURE", message: "the request carries no signature" }, NO_DIAGNOSTICS);
  }
  let malformed = false;
  for (const entry of entries.values()) {
    if (!entry.ok && entry.error.code !== "ERR_LABEL_MISSING") malformed = true;
  }
  let agentHeader;
  const agentLines = message.headers.get("signature-agent");
  if (agentLines !== void 0 && agentLines.length > 0) {
    const parsed = p.agents.get(agentLines);
    if (parsed.form !== "absent" || parsed.ignored) agentHeader = parsed;
    if (parsed.ignored) malformed = true;
  }
  const agentDiagnostics = agentHeader === void 0 || agentHeader.diagnostics.length === 0 ? NO_DIAGNOSTICS : agentHeader.diagnostics;
  if (!options.allowInsecure && isPlainHttp(message.url)) {
    return requestResult(
      "unverified",
      malformed,
      { code: "ERR_INSECURE_TRANSPORT", message: "signature received over plain HTTP (SPEC 5.3 rule 6); set allowInsecure to accept it" },
      agentDiagnostics
    );
  }
  const nowMs = p.now();
  if (typeof nowMs !== "number" || !Number.isFinite(nowMs)) {
    return requestResult("unverified", malformed, { code: "ERR_INTERNAL", message: "options.now returned no usable time" }, agentDiagnostics);
  }
  const ctx = {
    message,
    options,
    p,
    nowMs,
    agentHeader,
    entries,
    diagnostics: void 0,
    authorityAllowed: void 0,
    lookups: void 0,
    deadline: void 0,
    input: request,
    body: void 0,
    contentDigestRequired: void 0
  };
  const results = [];
  if (options.label === void 0) {
    const rest = entries.values();
    for (let next = rest.next(); next.done !== true; next = rest.next()) {
      const r = verifyOne(ctx, next.value, results.length);
      if (isThenable(r)) return verifyRest(ctx, r, rest, results, malformed, agentDiagnostics);
      results.push(r);
    }
  } else {
    const entry = entries.get(options.label);
    if (entry === void 0) {
      return requestResult(
        "unverified",
        malformed,
        { code: "ERR_LABEL_MISSING", message: "the request has no signature with the requested label" },
        agentDiagnostics
      );
    }
    const r = verifyOne(ctx, entry);
    if (isThenable(r)) return verifyRest(ctx, r, void 0, results, malformed, agentDiagnostics);
    results.push(r);
  }
  return summarise(ctx, results, malformed, agentDiagnostics);
}
async function verifyRest(ctx, pending, rest, results, malformed, agentDiagnostics) {
  results.push(await pending);
  if (rest !== void 0) {
    for (let next = rest.next(); next.done !== true; next = rest.next()) results.push(await verifyOne(ctx, next.value, results.length));
  }
  return summarise(ctx, results, malformed, agentDiagnostics);
}
function verifyOne(ctx, entry, index = 0) {
  const { p, options } = ctx;
  const label = entry.label;
  if (index >= p.maxSignatures) {
    return fail2(
      { label, covered: NO_STRINGS, params: NO_PARAMS3 },
      "unverified",
      "ERR_TOO_MANY_SIGNATURES",
      `the request carries more than ${p.maxSignatures} signatures; "${label}" was not judged`
    );
  }
  const d = { label, covered: NO_STRINGS, params: NO_PARAMS3 };
  if (entry.input !== void 0) d.covered = coveredOf(entry.input);
  if (!entry.ok) return finish2(d, "invalid", toInfo(entry.error, "ERR_SIGNATURE_INPUT_PARSE"));
  const input = entry.input;
  let params = input.view;
  if (!taggedWebBotAuth(input)) {
    try {
      d.params = params ?? signatureParams(input.params);
    } catch {
    }
    return finish2(d, "unverified", { code: "ERR_TAG_MISMATCH", message: `signature "${label}" is not tagged web-bot-auth; skipped` }, true);
  }
  if (params === void 0) {
    try {
      params = signatureParams(input.params);
    } catch (error) {
      return finish2(d, "invalid", toInfo(error, "ERR_PARAM_INVALID"));
    }
  }
  d.params = params;
  const stale = checkFreshness(d, params, ctx);
  if (stale !== void 0) return stale;
  const expires = params.expires;
  const coverageError = checkCoverage(input, d.covered, ctx, options.strictAuthority === true);
  if (coverageError !== void 0) return fail2(d, "invalid", "ERR_REQUIRED_COMPONENT", coverageError);
  const digests = coveredContentDigests(input.components);
  if (digests === void 0 && p.requireContentDigest !== void 0 && contentDigestRequired(ctx)) {
    return fail2(d, "invalid", "ERR_CONTENT_DIGEST_REQUIRED", `signature "${label}" does not cover content-digest, which this origin requires here`);
  }
  if (digests !== void 0) d.digests = digests;
  if (p.authorities !== void 0 && !authorityAllowed(ctx)) {
    return fail2(d, "invalid", "ERR_AUTHORITY_NOT_ALLOWED", `signature "${label}" was made for an authority this origin does not answer to`);
  }
  const candidates = agentCandidates(input, ctx.agentHeader);
  if (candidates === void 0) {
    return fail2(d, "invalid", "ERR_SIGNATURE_AGENT_NOT_COVERED", `signature "${label}" does not cover the Signature-Agent header (SPEC 5.2 rule 1)`);
  }
  if (candidates.length > 0) d.signatureAgent = candidates[0];
  let alg;
  if (params.alg !== void 0) {
    try {
      alg = toAlgorithmName(params.alg);
    } catch (error) {
      return finish2(d, "invalid", toInfo(error, "ERR_ALG_UNKNOWN"));
    }
    if (!p.algorithms.has(alg)) return fail2(d, "invalid", "ERR_ALG_NOT_ALLOWED", `algorithm ${alg} is not allowed here`);
  }
  const keyid = params.keyid;
  if (keyid === void 0) return fail2(d, "invalid", "ERR_PARAM_INVALID", `signature "${label}" has no keyid (SPEC 5.1)`);
  const nonceProblem = checkNonceParam(d, params, p);
  if (nonceProblem !== void 0) return nonceProblem;
  if (!options.allowTestKeys && isRfc9421TestKey(keyid)) {
    return fail2(d, "invalid", "ERR_KEY_TEST_KEY", "the key is a public RFC 9421 example key; set allowTestKeys to accept it");
  }
  let base;
  try {
    base = createReceivedSignatureBase(ctx.message, input);
  } catch (error) {
    return finish2(d, "invalid", toInfo(error, "ERR_COMPONENT_INVALID"));
  }
  const signature = entry.signature;
  const staticKey = p.staticKeys?.get(keyid);
  if (staticKey !== void 0) return withKey(ctx, d, staticKey, alg, base, signature, params.nonce, expires);
  let now;
  try {
    now = findKeyNow(ctx, keyid, candidates);
  } catch (error) {
    return finish2(d, "unverified", toInfo(error, "ERR_DIRECTORY_FETCH"));
  }
  if (!(now instanceof Pending)) return withFound(ctx, d, now, candidates, alg, base, signature, params.nonce, expires);
  return findKey(ctx, label, keyid, params.alg, candidates, now.from).then(
    (found) => withFound(ctx, d, found, candidates, alg, base, signature, params.nonce, expires),
    (error) => finish2(d, "unverified", toInfo(error, "ERR_DIRECTORY_FETCH"))
  );
}
function withFound(ctx, d, found, candidates, alg, base, signature, nonce, expires) {
  if (found !== void 0) return withKey(ctx, d, found, alg, base, signature, nonce, expires);
  if (ctx.options.directory !== void 0 && candidates.length === 0 && ctx.agentHeader !== void 0) {
    return fail2(
      d,
      "unverified",
      "ERR_SIGNATURE_AGENT_INVALID",
      `the Signature-Agent member covered by "${d.label}" is not usable (see diagnostics); its keys cannot be found`
    );
  }
  return fail2(d, "unverified", "ERR_KEY_UNKNOWN", `no key known for the keyid of signature "${d.label}"`);
}
function withKey(ctx, d, found, alg, base, signature, nonce, expires) {
  const p = ctx.p;
  d.agent = found.agent;
  d.keySource = found.source;
  if (found.delegation !== void 0) d.delegation = found.delegation;
  if (found.member !== void 0) d.signatureAgent = found.member;
  let key;
  if (found.key.alg !== void 0 && (alg === void 0 || alg === found.key.alg)) {
    key = found.key;
  } else {
    const bound = keyForAlgorithm(found.key, alg);
    if (isBotsigError(bound)) return fail2(d, "invalid", bound.code, bound.message);
    key = bound;
  }
  if (!p.algorithms.has(key.alg)) return fail2(d, "invalid", "ERR_ALG_NOT_ALLOWED", `algorithm ${key.alg} is not allowed here`);
  const memo = nonce === void 0 || p.policy === "none" ? p.verifiedMemo : void 0;
  if (memo !== void 0 && memo.has(key, base, signature)) return withSignature(ctx, d, true, nonce, expires);
  let ok;
  try {
    ok = verifyBase(key, base, signature);
  } catch {
    ok = false;
  }
  if (isThenable(ok)) {
    return Promise.resolve(ok).then(
      (v) => {
        if (v === true) memo?.remember(key, base, signature);
        return withSignature(ctx, d, v === true, nonce, expires);
      },
      () => withSignature(ctx, d, false, nonce, expires)
    );
  }
  if (ok === true) memo?.remember(key, base, signature);
  return withSignature(ctx, d, ok === true, nonce, expires);
}
function withSignature(ctx, d, ok, nonce, expires) {
  if (!ok) return fail2(d, "invalid", "ERR_SIGNATURE_INVALID", `signature "${d.label}" does not verify`);
  if (d.digests !== void 0) {
    return checkCoveredContentDigest(ctx, d, d.digests).then((failed2) => failed2 ?? recordNonce(ctx, d, nonce, expires));
  }
  return recordNonce(ctx, d, nonce, expires);
}
function isPlainHttp(url) {
  return url !== void 0 && url.length > 5 && url.charCodeAt(4) === 58 && url.slice(0, 4).toLowerCase() === "http";
}

// ../head/src/profile/challenge.ts
init_base64();
init_errors();
init_sf();

// ../head/src/httpsig/accept-signature.ts
init_errors();
init_signature_input();
function parseAcceptSignature(value) {
  const dict = parseSignatureDictionary(value, "ERR_ACCEPT_SIGNATURE_PARSE", "Accept-Signature");
  const out = /* @__PURE__ */ new Map();
  for (const [label, member] of dict) out.set(label, memberToSignatureInput(label, member, "ERR_ACCEPT_SIGNATURE_PARSE"));
  return out;
}
function serializeAcceptSignature(inputs) {
  if (!Array.isArray(inputs)) throw new TypeError("inputs must be an array");
  const seen = /* @__PURE__ */ new Set();
  let out = "";
  for (const input of inputs) {
    if (!isValidLabel(input.label)) throw new TypeError("signature label must be a Structured Field key");
    if (seen.has(input.label)) throw new TypeError("signature labels must be unique");
    seen.add(input.label);
    out += (out === "" ? "" : ", ") + serializeSignatureInputMember(input);
  }
  return out;
}
function acceptSignatureRequest(params) {
  const out = { created: flag(params, "created"), expires: flag(params, "expires") };
  for (const name of ["nonce", "alg", "keyid", "tag"]) {
    const v = params.get(name);
    if (v === void 0) continue;
    if (v.type !== "string") throw new BotsigError("ERR_PARAM_INVALID", `Accept-Signature parameter ${name} must be a String`);
    out[name] = v.value;
  }
  return out;
}
function flag(params, name) {
  const v = params.get(name);
  if (v === void 0) return false;
  if (v.type === "boolean") return v.value;
  if (v.type === "integer") return true;
  throw new BotsigError("ERR_PARAM_INVALID", `Accept-Signature parameter ${name} must be a flag`);
}

// ../head/src/profile/challenge.ts
init_components();
function createChallenge(result, options = {}) {
  if (typeof result !== "object" || result === null || !Array.isArray(result.signatures)) throw new TypeError("createChallenge expects a VerificationResult");
  if (result.outcome === "verified") return void 0;
  if (result.malformed) return { status: 400, headers: {}, reason: "malformed signature headers" };
  let replay = false;
  let later = false;
  let digest2 = false;
  for (const s of result.signatures) {
    const code = s.error?.code;
    if (code === "ERR_CONTENT_DIGEST_REQUIRED") digest2 = true;
    else if (code === "ERR_NONCE_REPLAYED" || code === "ERR_NONCE_STORE_UNAVAILABLE") replay = true;
    else if (code === "ERR_NONCE_QUOTA_EXCEEDED" || code === "ERR_DISCOVERY_LIMITED" || code === "ERR_DISCOVERY_BUDGET") later = true;
  }
  const nonce = options.nonce === true ? randomNonce2() : options.nonce;
  let asked = nonce === void 0 ? options : { ...options, nonce };
  if (digest2) {
    const components = options.components ?? ["@authority"];
    if (!components.some((c) => parseComponentIdentifier(c).name === "content-digest")) asked = { ...asked, components: [...components, "content-digest"] };
  }
  const headers = { "accept-signature": acceptSignatureValue(asked) };
  const extra = nonce === void 0 ? {} : { nonce };
  if (replay) return { status: 429, headers, reason: "sign again with a fresh nonce", ...extra };
  if (later) return { status: 429, headers, reason: "too many requests; try again later", ...extra };
  return { status: 403, headers, reason: result.signatures.length === 0 ? "signature required" : "signature not accepted", ...extra };
}
function acceptSignatureValue(options = {}) {
  const params = /* @__PURE__ */ new Map();
  params.set("tag", sfString(WEB_BOT_AUTH_TAG));
  params.set("created", sfBoolean(true));
  params.set("expires", sfBoolean(true));
  if (options.keyid !== void 0) params.set("keyid", sfString(options.keyid));
  if (options.nonce !== void 0) params.set("nonce", sfString(options.nonce === true ? randomNonce2() : options.nonce));
  const components = (options.components ?? ["@authority"]).map((c) => parseComponentIdentifier(c));
  return serializeAcceptSignature([{ label: options.label ?? "sig1", components, params }]);
}
function randomNonce2() {
  const bytes2 = new Uint8Array(64);
  globalThis.crypto.getRandomValues(bytes2);
  return base64UrlEncode(bytes2);
}
function signOptionsFromChallenge(acceptSignature) {
  const requests = parseAcceptSignature(acceptSignature);
  for (const input of requests.values()) {
    const tag = input.params.get("tag");
    if (tag !== void 0 && !(tag.type === "string" && tag.value === WEB_BOT_AUTH_TAG)) continue;
    const nonce = input.params.get("nonce");
    const keyid = input.params.get("keyid");
    const components = input.components.filter((c) => c.name !== "signature-agent").map((c) => serializeComponentIdentifier(c));
    return {
      components,
      ...nonce?.type === "string" ? { nonce: nonce.value } : {},
      ...keyid?.type === "string" ? { keyid: keyid.value } : {},
      tag: WEB_BOT_AUTH_TAG
    };
  }
  throw new BotsigError("ERR_ACCEPT_SIGNATURE_PARSE", "Accept-Signature asks for no web-bot-auth signature");
}

// ../head/src/profile/relabel.ts
init_errors();
init_sf();

// ../head/src/httpsig/relabel.ts
init_errors();
init_sf();
init_signature_input();
function renameKey(dict, from, to) {
  const out = /* @__PURE__ */ new Map();
  for (const [k, v] of dict) out.set(k === from ? to : k, v);
  return out;
}
function renameSignatureLabel(headers, from, to) {
  if (typeof headers !== "object" || headers === null) throw new TypeError("headers must be an object");
  if (!isValidLabel(to)) throw new TypeError('the new label must be a Structured Field key (lowercase, e.g. "sig2")');
  const inputs = parseSignatureDictionary(headers["signature-input"], "ERR_SIGNATURE_INPUT_PARSE", "Signature-Input");
  const sigs = parseSignatureDictionary(headers.signature, "ERR_SIGNATURE_PARSE", "Signature");
  const inputMember = inputs.get(from);
  const sigMember = sigs.get(from);
  if (inputMember === void 0 || sigMember === void 0) {
    throw new BotsigError("ERR_LABEL_MISSING", `label ${from} is not in both Signature-Input and Signature`);
  }
  if (from === to) return { "signature-input": headers["signature-input"], signature: headers.signature };
  if (inputs.has(to) || sigs.has(to)) throw new BotsigError("ERR_LABEL_EXISTS", `label ${to} is already used`);
  memberToSignatureInput(from, inputMember, "ERR_SIGNATURE_INPUT_PARSE");
  if (sigMember.kind !== "item" || sigMember.value.type !== "binary") {
    throw new BotsigError("ERR_SIGNATURE_PARSE", `Signature member ${from} is not a Byte Sequence`);
  }
  return {
    "signature-input": serializeDictionary(renameKey(inputs, from, to)),
    signature: serializeDictionary(renameKey(sigs, from, to))
  };
}

// ../head/src/profile/relabel.ts
init_signature_input();
function relabelSignature(headers, from, to, options = {}) {
  if (typeof headers !== "object" || headers === null) throw new TypeError("headers must be an object");
  const renamed = renameSignatureLabel({ signature: headers.signature, "signature-input": headers["signature-input"] }, from, to);
  const agent = headers["signature-agent"];
  if (agent === void 0) return renamed;
  if (!options.renameSignatureAgentMember || from === to) return { ...renamed, "signature-agent": agent };
  for (const input of parseSignatureInput(headers["signature-input"]).values()) {
    for (const c of input.components) {
      if (c.name !== "signature-agent") continue;
      const key = c.params.get("key");
      if (key === void 0 || key.type === "string" && key.value === from) {
        throw new BotsigError(
          "ERR_SIGNATURE_AGENT_INVALID",
          `signature "${input.label}" covers the Signature-Agent member "${from}"; renaming it would break the signature`
        );
      }
    }
  }
  let dict;
  try {
    dict = parseDictionary(agent);
  } catch {
    throw new BotsigError("ERR_SIGNATURE_AGENT_INVALID", "Signature-Agent is not a Dictionary; its members cannot be renamed");
  }
  if (!dict.has(from)) return { ...renamed, "signature-agent": agent };
  if (dict.has(to)) throw new BotsigError("ERR_LABEL_EXISTS", `Signature-Agent already has a member "${to}"`);
  const out = /* @__PURE__ */ new Map();
  for (const [k, v] of dict) out.set(k === from ? to : k, v);
  return { ...renamed, "signature-agent": serializeDictionary(out) };
}

// ../head/src/index.ts
init_signature_agent();

// ../head/src/verifier/origin-nonce.ts
init_sha256();
init_base64();
init_options();
init_time();

// ../head/src/verifier/options.ts
init_errors();
init_options();

// ../head/src/verifier/lazy-directory.ts
function lazyDirectoryClient(options) {
  let client;
  const loading = Promise.resolve().then(() => (init_client(), client_exports)).then(({ DirectoryClient: DirectoryClient2 }) => client = new DirectoryClient2(options));
  loading.catch(() => void 0);
  return {
    resolve(member) {
      if (client !== void 0) return client.resolve(member);
      return loading.then((c) => c.resolve(member));
    }
  };
}

// ../head/src/verifier/options.ts
function checkTrustProxy(value) {
  if (typeof value === "boolean" || typeof value === "function") return;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= 64) return;
  throw new TypeError("options.trustProxy must be a boolean, a number of proxies (0\u201364) or a function");
}
function checkFlag(options, name) {
  const value = options[name];
  if (value !== void 0 && typeof value !== "boolean") throw new TypeError(`options.${name} must be a boolean`);
}
function isKeyDirectory(value) {
  return typeof value === "object" && value !== null && typeof value.resolve === "function";
}
var VERIFIER_OPTION_NAMES = [...VERIFY_OPTION_NAMES, "mode", "policy", "trustProxy", "challenge", "originNonce"];
function buildVerifyOptions(options) {
  checkOptionNames(options, VERIFIER_OPTION_NAMES, "createVerifier options");
  checkFlag(options, "allowInsecure");
  checkFlag(options, "allowTestKeys");
  checkFlag(options, "allowHttpSignatureAgent");
  checkFlag(options, "strictAuthority");
  if (options.keys !== void 0 && !Array.isArray(options.keys)) throw new TypeError("options.keys must be an array of public JWKs or verifying keys");
  if (options.resolveKey !== void 0 && typeof options.resolveKey !== "function") throw new TypeError("options.resolveKey must be a function");
  if (options.now !== void 0 && typeof options.now !== "function") throw new TypeError("options.now must be a function returning milliseconds");
  if (options.requiredComponents !== void 0 && !Array.isArray(options.requiredComponents)) {
    throw new TypeError("options.requiredComponents must be an array of component identifiers");
  }
  if (options.algorithms !== void 0 && !Array.isArray(options.algorithms)) throw new TypeError("options.algorithms must be an array");
  let directory;
  const given = options.directory;
  if (given === false) {
    directory = void 0;
  } else if (isKeyDirectory(given)) {
    directory = given;
  } else if (given === void 0) {
    directory = options.keys === void 0 && options.resolveKey === void 0 ? lazyDirectoryClient(options.now === void 0 ? {} : { now: options.now }) : void 0;
  } else if (typeof given === "object" && given !== null) {
    directory = lazyDirectoryClient(options.now === void 0 || given.now !== void 0 ? given : { ...given, now: options.now });
  } else {
    throw new TypeError("options.directory must be a DirectoryClient, DirectoryClient options or false");
  }
  const nonce = options.nonce;
  if (nonce !== void 0 && (typeof nonce !== "object" || nonce === null)) throw new TypeError("options.nonce must be an object");
  if (nonce !== void 0) checkOptionNames(nonce, NONCE_OPTION_NAMES, "options.nonce");
  const noncePolicy = nonce?.policy ?? "optional";
  if (noncePolicy !== "none" && noncePolicy !== "optional" && noncePolicy !== "required") {
    throw new TypeError("options.nonce.policy must be 'none', 'optional' or 'required'");
  }
  const store = nonce?.store ?? new MemoryNonceStore(options.now === void 0 ? {} : { now: options.now });
  if (typeof store.checkAndRecord !== "function") throw new TypeError("options.nonce.store must be a NonceStore");
  const out = {
    nonce: Object.freeze(nonce?.maxLength === void 0 ? { policy: noncePolicy, store } : { policy: noncePolicy, store, maxLength: nonce.maxLength })
  };
  if (directory !== void 0) out.directory = directory;
  if (options.keys !== void 0) out.keys = Object.freeze([...options.keys]);
  if (options.resolveKey !== void 0) out.resolveKey = options.resolveKey;
  if (options.now !== void 0) out.now = options.now;
  if (options.clockSkewSeconds !== void 0) out.clockSkewSeconds = nonNegative(options.clockSkewSeconds, "clockSkewSeconds");
  if (options.maxValiditySeconds !== void 0) out.maxValiditySeconds = nonNegative(options.maxValiditySeconds, "maxValiditySeconds");
  if (options.requiredComponents !== void 0) out.requiredComponents = Object.freeze([...options.requiredComponents]);
  if (options.strictAuthority !== void 0) out.strictAuthority = options.strictAuthority;
  if (options.algorithms !== void 0) out.algorithms = Object.freeze([...options.algorithms]);
  if (options.allowInsecure !== void 0) out.allowInsecure = options.allowInsecure;
  if (options.allowTestKeys !== void 0) out.allowTestKeys = options.allowTestKeys;
  if (options.allowHttpSignatureAgent !== void 0) out.allowHttpSignatureAgent = options.allowHttpSignatureAgent;
  if (options.label !== void 0) {
    if (typeof options.label !== "string") throw new TypeError("options.label must be a string");
    out.label = options.label;
  }
  if (options.authorities !== void 0) {
    if (!Array.isArray(options.authorities)) throw new TypeError("options.authorities must be an array of host or host:port strings");
    out.authorities = Object.freeze([...options.authorities]);
  }
  if (options.discovery !== void 0) {
    if (typeof options.discovery !== "object" || options.discovery === null) throw new TypeError("options.discovery must be an object");
    out.discovery = Object.freeze({ ...options.discovery });
  }
  if (options.maxSignatures !== void 0) out.maxSignatures = options.maxSignatures;
  if (options.requireContentDigest !== void 0) out.requireContentDigest = options.requireContentDigest;
  if (options.maxBodyBytes !== void 0) out.maxBodyBytes = options.maxBodyBytes;
  const memo = options.verifiedSignatureMemo;
  if (memo !== void 0) out.verifiedSignatureMemo = typeof memo === "object" && memo !== null ? Object.freeze({ ...memo }) : memo;
  const frozen = Object.freeze(out);
  prepareVerifyOptions(frozen);
  return frozen;
}
function nonNegative(value, name) {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw new TypeError(`options.${name} must be a non-negative number of seconds`);
  return value;
}
function buildChallengeOptions(options) {
  const c = options.challenge;
  if (c !== void 0 && (typeof c !== "object" || c === null)) throw new TypeError("options.challenge must be an object");
  if (c !== void 0) checkOptionNames(c, ["label", "components", "keyid"], "options.challenge");
  const components = c?.components ?? ["@authority", ...options.requiredComponents ?? []];
  if (!Array.isArray(components)) throw new TypeError("options.challenge.components must be an array");
  const out = { components: Object.freeze([...components]) };
  if (c?.label !== void 0) out.label = c.label;
  if (c?.keyid !== void 0) out.keyid = c.keyid;
  try {
    acceptSignatureValue(out);
  } catch (error) {
    if (isBotsigError(error) || error instanceof TypeError)
      throw new TypeError("options.challenge does not make a valid Accept-Signature (check label, components, keyid)");
    throw error;
  }
  return Object.freeze(out);
}

// ../head/src/verifier/origin-nonce.ts
var NONCE_TIME_BYTES = 4;
var NONCE_RANDOM_BYTES = 16;
var NONCE_MAC_BYTES = 16;
var NONCE_BYTES2 = NONCE_TIME_BYTES + NONCE_RANDOM_BYTES + NONCE_MAC_BYTES;
var NONCE_TEXT_LENGTH = Math.ceil(NONCE_BYTES2 * 4 / 3);
var DEFAULT_ORIGIN_NONCE_MAX_AGE_SECONDS = 300;
function originNonceMinter(option, verifyOptions) {
  if (option === void 0 || option === false) return void 0;
  if (option !== true && (typeof option !== "object" || option === null)) throw new TypeError("options.originNonce must be a boolean or an object");
  const o = option === true ? {} : option;
  checkOptionNames(o, ["secret", "maxAgeSeconds", "required"], "options.originNonce");
  let secret;
  if (o.secret === void 0) {
    secret = globalThis.crypto.getRandomValues(new Uint8Array(32));
  } else if (typeof o.secret === "string") {
    secret = utf8(o.secret);
  } else if (o.secret instanceof Uint8Array) {
    secret = o.secret.slice();
  } else {
    throw new TypeError("options.originNonce.secret must be a Uint8Array or a string");
  }
  if (secret.length < 16) throw new TypeError("options.originNonce.secret must be at least 16 bytes");
  const maxAge = o.maxAgeSeconds === void 0 ? DEFAULT_ORIGIN_NONCE_MAX_AGE_SECONDS : nonNegative(o.maxAgeSeconds, "originNonce.maxAgeSeconds");
  const required = o.required ?? false;
  if (typeof required !== "boolean") throw new TypeError("options.originNonce.required must be a boolean");
  if (required && verifyOptions.nonce?.policy === "none") throw new TypeError("options.originNonce.required needs a nonce policy other than 'none'");
  const now = verifyOptions.now ?? systemClock;
  const skew = verifyOptions.clockSkewSeconds ?? 60;
  const keyed = hmacSha256(secret);
  const mac = (bytes2) => keyed(bytes2).subarray(0, NONCE_MAC_BYTES);
  const mint = () => {
    const bytes2 = new Uint8Array(NONCE_BYTES2);
    const seconds2 = Math.floor(now() / 1e3);
    new DataView(bytes2.buffer).setUint32(0, seconds2 >>> 0);
    globalThis.crypto.getRandomValues(bytes2.subarray(NONCE_TIME_BYTES, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES));
    bytes2.set(mac(bytes2.subarray(0, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES)), NONCE_TIME_BYTES + NONCE_RANDOM_BYTES);
    return base64UrlEncode(bytes2);
  };
  const isMinted = (nonce) => {
    if (nonce.length !== NONCE_TEXT_LENGTH) return false;
    const bytes2 = base64UrlDecode(nonce);
    if (bytes2 === void 0 || bytes2.length !== NONCE_BYTES2) return false;
    const expected = mac(bytes2.subarray(0, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES));
    let diff = 0;
    for (let i = 0; i < NONCE_MAC_BYTES; i++) diff |= expected[i] ^ bytes2[NONCE_TIME_BYTES + NONCE_RANDOM_BYTES + i];
    if (diff !== 0) return false;
    const issued = new DataView(bytes2.buffer, bytes2.byteOffset).getUint32(0);
    const nowSeconds = now() / 1e3;
    return issued <= nowSeconds + skew && issued + maxAge >= nowSeconds - skew;
  };
  const enforce = (result) => {
    if (result.outcome !== "verified") return result;
    let changed = false;
    const signatures = result.signatures.map((s) => {
      if (s.outcome !== "verified") return s;
      const nonce = s.params.nonce;
      if (nonce !== void 0 && isMinted(nonce)) return s;
      changed = true;
      return {
        ...s,
        outcome: "invalid",
        error: nonce === void 0 ? { code: "ERR_NONCE_MISSING", message: `signature "${s.label}" has no nonce; this origin requires one it issued` } : { code: "ERR_NONCE_INVALID", message: `the nonce of signature "${s.label}" was not issued by this origin, or is too old` }
      };
    });
    if (!changed) return result;
    const verified = signatures.find((s) => s.outcome === "verified");
    const { agent: _agent, error: _error, ...rest } = result;
    if (verified !== void 0) return verified.agent === void 0 ? { ...rest, signatures } : { ...rest, signatures, agent: verified.agent };
    const failed2 = signatures.find((s) => s.outcome === "invalid" && s.error !== void 0);
    return { ...rest, outcome: "invalid", signatures, ...failed2?.error === void 0 ? {} : { error: failed2.error } };
  };
  return { required, mint, enforce };
}

// ../head/src/verifier/policy.ts
init_message();
function policyRequest(message) {
  if (message instanceof Request) {
    return { method: message.method, url: message.url, path: pathOf(message.url, void 0), header: (name) => message.headers.get(name) ?? void 0 };
  }
  const headers = message.headers;
  return {
    method: message.method ?? "GET",
    url: message.url ?? "",
    path: pathOf(message.url, message.target),
    header: (name) => headerValue(headers, name.toLowerCase())
  };
}
function pathOf(url, target) {
  const parsed = url === void 0 || url === "" ? void 0 : parseTargetUri(url);
  if (parsed !== void 0) return parsed.path;
  if (target !== void 0 && target.charCodeAt(0) === 47) {
    const q = target.indexOf("?");
    return q < 0 ? target : target.slice(0, q);
  }
  return "/";
}
function headerValue(headers, lower) {
  if (headers === void 0) return void 0;
  if (headers instanceof Headers) return headers.get(lower) ?? void 0;
  const lines = [];
  if (Symbol.iterator in headers) {
    for (const [name, value] of headers) if (name.toLowerCase() === lower) lines.push(value);
  } else {
    const record = headers;
    for (const name of Object.keys(record)) {
      if (name.toLowerCase() !== lower) continue;
      const value = record[name];
      if (typeof value === "string") lines.push(value);
      else if (value !== void 0) lines.push(...value);
    }
  }
  return lines.length === 0 ? void 0 : lines.join(", ");
}
function checkDecision(decision) {
  if (decision === void 0 || decision instanceof Response) return;
  if (typeof decision === "object" && decision !== null) {
    const { status, headers, reason } = decision;
    if (Number.isSafeInteger(status) && status >= 200 && status <= 599 && (headers === void 0 || typeof headers === "object" && headers !== null) && (reason === void 0 || typeof reason === "string")) {
      return;
    }
  }
  throw new TypeError("a policy must return undefined, a Response or { status, headers?, reason? } with a status from 200 to 599");
}

// ../head/src/verifier/forwarded.ts
var MAX_FORWARDED_LENGTH = 8192;
var MAX_FORWARDED_ELEMENTS = 64;
var TCHAR2 = new Uint8Array(128);
for (const ch of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR2[ch.charCodeAt(0)] = 1;
function isOws(c) {
  return c === 32 || c === 9;
}
function parseForwarded(text) {
  const out = [];
  let element = {};
  let pairs = 0;
  const n = text.length;
  let i = 0;
  for (; ; ) {
    while (i < n && isOws(text.charCodeAt(i))) i++;
    if (i >= n) break;
    let c = text.charCodeAt(i);
    if (c === 44) {
      out.push(element);
      if (out.length > MAX_FORWARDED_ELEMENTS) return void 0;
      element = {};
      i++;
      continue;
    }
    if (c === 59) {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < n && (c = text.charCodeAt(i)) < 128 && TCHAR2[c] === 1) i++;
    if (i === nameStart || i >= n || text.charCodeAt(i) !== 61) return void 0;
    const name = text.slice(nameStart, i).toLowerCase();
    i++;
    let value;
    if (i < n && text.charCodeAt(i) === 34) {
      i++;
      let v = "";
      let closed = false;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c === 34) {
          closed = true;
          i++;
          break;
        }
        if (c === 92) {
          i++;
          if (i >= n) return void 0;
        }
        v += text[i];
        i++;
      }
      if (!closed) return void 0;
      value = v;
    } else {
      const valueStart = i;
      while (i < n && (c = text.charCodeAt(i)) !== 44 && c !== 59 && c !== 34 && !isOws(c)) i++;
      if (i === valueStart) return void 0;
      value = text.slice(valueStart, i);
    }
    if (++pairs > MAX_FORWARDED_ELEMENTS * 8) return void 0;
    if (name === "host" && element.host === void 0) element.host = value;
    else if (name === "proto" && element.proto === void 0) element.proto = value;
  }
  out.push(element);
  return out;
}
var AUTHORITY_CHAR = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=%:[]") AUTHORITY_CHAR[ch.charCodeAt(0)] = 1;
function isValidAuthority(text) {
  const n = text.length;
  if (n === 0 || n > 262) return false;
  let close = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || AUTHORITY_CHAR[c] !== 1) return false;
    if (c === 91 && i !== 0) return false;
    if (c === 93) {
      if (text.charCodeAt(0) !== 91 || close >= 0) return false;
      close = i;
    }
  }
  if (text.charCodeAt(0) === 91 && close < 0) return false;
  let portStart = -1;
  if (close >= 0) {
    if (close + 1 < n) {
      if (text.charCodeAt(close + 1) !== 58) return false;
      portStart = close + 2;
    }
  } else {
    const colon = text.indexOf(":");
    if (colon === 0) return false;
    if (colon > 0) portStart = colon + 1;
  }
  if (portStart >= 0) {
    if (portStart >= n || n - portStart > 5) return false;
    for (let i = portStart; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
  }
  return true;
}

// ../head/src/verifier/transport.ts
function adjust(request, transport, trust) {
  if (!(request instanceof Request)) return request;
  const secure = transport?.secure;
  const forwarded = trust === false ? void 0 : forwardedOrigin((n) => request.headers.get(n) ?? void 0, trust, transport?.remoteAddress);
  if (secure === void 0 && (forwarded === void 0 || forwarded.host === void 0 && forwarded.proto === void 0)) return request;
  const url = request.url;
  const schemeEnd = url.indexOf("://");
  if (schemeEnd < 0) return request;
  const pathStart = url.indexOf("/", schemeEnd + 3);
  const authority = forwarded?.host ?? (pathStart < 0 ? url.slice(schemeEnd + 3) : url.slice(schemeEnd + 3, pathStart));
  const scheme = forwarded?.proto ?? (secure === void 0 ? url.slice(0, schemeEnd) : secure ? "https" : "http");
  const rest = pathStart < 0 ? "/" : url.slice(pathStart);
  return { method: request.method, url: `${scheme}://${authority}${rest}`, headers: request.headers, body: () => requestBody(request) };
}
function requestBody(request) {
  if (request.body === null) return null;
  return request.clone().body;
}
function trustedHops(trust, remoteAddress) {
  if (trust === false || trust === 0) return 0;
  if (trust === true) return Infinity;
  if (typeof trust === "number") return trust;
  return trust(remoteAddress) === true ? Infinity : 0;
}
function forwardedOrigin(header3, trust, remoteAddress) {
  const hops = trustedHops(trust, remoteAddress);
  if (hops === 0) return void 0;
  let proto;
  let host;
  const forwarded = header3("forwarded");
  if (forwarded !== void 0 && forwarded.length <= MAX_FORWARDED_LENGTH) {
    const elements = parseForwarded(forwarded);
    const element = elements === void 0 ? void 0 : pickElement(elements, hops);
    if (element !== void 0) {
      proto = checkProto(element.proto);
      host = checkHost(element.host);
    }
  }
  if (proto === void 0) proto = checkProto(pickListItem(header3("x-forwarded-proto"), hops));
  if (host === void 0) host = checkHost(pickListItem(header3("x-forwarded-host"), hops));
  const out = {};
  if (proto !== void 0) out.proto = proto;
  if (host !== void 0) out.host = host;
  return out;
}
function pickElement(items, hops) {
  if (items.length === 0) return void 0;
  return hops >= items.length ? items[0] : items[items.length - hops];
}
function pickListItem(value, hops) {
  if (value === void 0 || value.length > MAX_FORWARDED_LENGTH) return void 0;
  if (value.indexOf(",") < 0) return value.trim();
  const items = value.split(",", MAX_FORWARDED_ELEMENTS + 1);
  if (items.length > MAX_FORWARDED_ELEMENTS) return void 0;
  return pickElement(items, hops)?.trim();
}
function checkProto(value) {
  if (value === void 0) return void 0;
  const lower = value.toLowerCase();
  return lower === "http" || lower === "https" ? lower : void 0;
}
function checkHost(value) {
  return value !== void 0 && isValidAuthority(value) ? value : void 0;
}

// ../head/src/verifier/create.ts
var verifiers = /* @__PURE__ */ new WeakSet();
var warnedNoAuthorities = false;
function warnIfNoAuthorities(verifier, adapter) {
  if (warnedNoAuthorities || verifier.verifyOptions.authorities !== void 0) return;
  warnedNoAuthorities = true;
  console.warn(
    `botsig (${adapter}): no "authorities" configured, so a signature made for another site verifies here too; set authorities: ['your.host.example'] (README "Security model").`
  );
}
function isVerifier(value) {
  return typeof value === "object" && value !== null && verifiers.has(value);
}
var MODES = /* @__PURE__ */ new Set(["observe", "enforce"]);
function createVerifier(options = {}) {
  if (typeof options !== "object" || options === null) throw new TypeError("createVerifier options must be an object");
  const policy = options.policy;
  if (policy !== void 0 && typeof policy !== "function") throw new TypeError("options.policy must be a function");
  const mode = options.mode ?? (policy === void 0 ? "observe" : "enforce");
  if (typeof mode !== "string" || !MODES.has(mode)) throw new TypeError("options.mode must be 'observe' or 'enforce'");
  if (policy !== void 0 && mode === "observe") throw new TypeError("options.policy decides what to block: it needs mode 'enforce'");
  const trustProxy = options.trustProxy ?? false;
  checkTrustProxy(trustProxy);
  const verifyOptions = buildVerifyOptions(options);
  const minter = originNonceMinter(options.originNonce, verifyOptions);
  const challengeOptions = buildChallengeOptions(options);
  const decide = (result) => {
    if (result.outcome === "verified") return void 0;
    if (minter === void 0 || result.malformed) return createChallenge(result, challengeOptions);
    return createChallenge(result, { ...challengeOptions, nonce: minter.mint() });
  };
  const verifyMessage2 = async (message) => {
    const result = await verifyRequest(message, verifyOptions);
    return minter?.required === true ? minter.enforce(result) : result;
  };
  const verify3 = (request, transport) => verifyMessage2(adjust(request, transport, trustProxy));
  const handle = async (request, transport) => {
    const message = adjust(request, transport, trustProxy);
    const result = await verifyMessage2(message);
    if (mode === "observe") return { result, challenge: void 0 };
    const fallback = decide(result);
    if (policy === void 0) return { result, challenge: fallback };
    const decision = await policy(result, policyRequest(message), fallback);
    checkDecision(decision);
    return { result, challenge: decision };
  };
  const verifier = Object.freeze({ mode, trustProxy, verifyOptions, verify: verify3, decide, handle });
  verifiers.add(verifier);
  return verifier;
}

// ../head/src/verifier/responses.ts
function challengeResponse(challenge) {
  if (challenge instanceof Response) return challenge;
  return new Response(challenge.reason ?? "", { status: challenge.status, headers: rejectionHeaders(challenge) });
}
function rejectionHeaders(challenge) {
  const headers = { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" };
  if (challenge.headers !== void 0) {
    for (const name of Object.keys(challenge.headers)) headers[name.toLowerCase()] = challenge.headers[name];
  }
  return headers;
}

// ../head/src/index.ts
init_keys();
init_thumbprint();
init_digest();

// ../head/src/crypto/generate.ts
init_errors();
init_registry();
init_thumbprint();
init_webcrypto();
var PUBLIC_ORDER = ["kty", "crv", "x", "y", "n", "e"];
var PRIVATE_ORDER = ["kty", "crv", "x", "y", "n", "e", "d", "p", "q", "dp", "dq", "qi"];
function pick(source, names) {
  const out = {};
  for (const name of names) {
    const value = source[name];
    if (typeof value === "string") out[name] = value;
  }
  return out;
}
async function generatePrivateJwk(alg) {
  const spec = algorithmSpec(alg);
  if (spec.nobleFallback && !await webCryptoHasEd25519()) return (await loadNoble()).nobleGenerateEd25519Jwk();
  const subtle = getSubtle();
  try {
    const pair = await subtle.generateKey(spec.webCrypto.generateParams, true, ["sign", "verify"]);
    return await subtle.exportKey("jwk", pair.privateKey);
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw new BotsigError("ERR_CRYPTO_UNSUPPORTED", `this runtime cannot generate ${alg} keys`, { cause: error });
  }
}
async function generateKeyPair(alg = "ed25519") {
  const name = toAlgorithmName(alg);
  const exported = await generatePrivateJwk(name);
  const publicJwk = pick(exported, PUBLIC_ORDER);
  const thumbprint = await jwkThumbprint(publicJwk);
  const named = inferAlgorithm(publicJwk) === name ? {} : { alg: name };
  const privateJwk = { ...pick(exported, PRIVATE_ORDER), ...named, kid: thumbprint };
  return { privateJwk, publicJwk: { ...publicJwk, kid: thumbprint, ...named, use: "sig" }, thumbprint };
}

// ../head/src/index.ts
init_provider();
init_registry();
init_url();
init_errors();

// ../head/src/httpsig.ts
var httpsig_exports = {};
__export(httpsig_exports, {
  BotsigError: () => BotsigError,
  STRUCTURED_FIELDS: () => STRUCTURED_FIELDS,
  acceptSignatureRequest: () => acceptSignatureRequest,
  componentValues: () => componentValues,
  createSignatureBase: () => createSignatureBase,
  importSigningKey: () => importSigningKey,
  importVerifyingKey: () => importVerifyingKey,
  innerList: () => innerList,
  isBotsigError: () => isBotsigError,
  isHttpMessage: () => isHttpMessage,
  isValidLabel: () => isValidLabel,
  item: () => item,
  keyForAlgorithm: () => keyForAlgorithm,
  nextLabel: () => nextLabel,
  parseAcceptSignature: () => parseAcceptSignature,
  parseComponentIdentifier: () => parseComponentIdentifier,
  parseDictionary: () => parseDictionary,
  parseItem: () => parseItem,
  parseList: () => parseList,
  parseRawHttpMessage: () => parseRawHttpMessage,
  parseSignature: () => parseSignature,
  parseSignatureInput: () => parseSignatureInput,
  readSignatures: () => readSignatures,
  renameSignatureLabel: () => renameSignatureLabel,
  serializeAcceptSignature: () => serializeAcceptSignature,
  serializeBareItem: () => serializeBareItem,
  serializeComponentIdentifier: () => serializeComponentIdentifier,
  serializeDictionary: () => serializeDictionary,
  serializeInnerList: () => serializeInnerList,
  serializeItem: () => serializeItem,
  serializeList: () => serializeList,
  serializeMember: () => serializeMember,
  serializeParameters: () => serializeParameters,
  serializeSignatureInputMember: () => serializeSignatureInputMember,
  serializeSignatureParams: () => serializeSignatureParams,
  sfBinary: () => sfBinary,
  sfBoolean: () => sfBoolean,
  sfDate: () => sfDate,
  sfDecimal: () => sfDecimal,
  sfDisplayString: () => sfDisplayString,
  sfInteger: () => sfInteger,
  sfString: () => sfString,
  sfToken: () => sfToken,
  signMessage: () => signMessage,
  signatureParams: () => signatureParams,
  toHttpMessage: () => toHttpMessage,
  verifyMessage: () => verifyMessage,
  verifySignatureBytes: () => verifySignatureBytes
});

// ../head/src/httpsig/sign.ts
init_base64();
init_errors();
init_sf();
init_keys();
init_registry();
init_base2();
init_components();
init_message();
init_signature_input();
function toParams(params) {
  const out = /* @__PURE__ */ new Map();
  if (params === void 0) return out;
  if (typeof params !== "object" || params === null) throw new TypeError("params must be an object");
  for (const name of Object.keys(params)) {
    if (!isValidLabel(name)) throw new TypeError("signature parameter names must be Structured Field keys");
    const v = params[name];
    if (v === void 0) continue;
    let item2;
    if (typeof v === "string") item2 = sfString(v);
    else if (typeof v === "number") item2 = Number.isInteger(v) ? sfInteger(v) : sfDecimal(v);
    else if (typeof v === "boolean") item2 = sfBoolean(v);
    else if (typeof v === "object" && v !== null && typeof v.type === "string") item2 = v;
    else throw new TypeError(`signature parameter ${name} has an unsupported value`);
    out.set(name, item2);
  }
  return out;
}
function existingLabels(message) {
  const input = fieldValue(message, "signature-input");
  const signature = fieldValue(message, "signature");
  const labels = /* @__PURE__ */ new Set();
  if (input !== void 0) for (const k of parseSignatureDictionary(input, "ERR_SIGNATURE_INPUT_PARSE", "Signature-Input").keys()) labels.add(k);
  if (signature !== void 0) for (const k of parseSignatureDictionary(signature, "ERR_SIGNATURE_PARSE", "Signature").keys()) labels.add(k);
  return { labels, input, signature };
}
async function signMessage(message, options) {
  if (typeof options !== "object" || options === null) throw new TypeError("signMessage needs options");
  const key = options.key;
  if (typeof key !== "object" || key === null || typeof key.sign !== "function") throw new TypeError("options.key must be a SigningKey");
  if (!Array.isArray(options.components)) throw new TypeError("options.components must be an array");
  keyAlgorithm(key.alg);
  const msg = toHttpMessage(message, options.request === void 0 ? void 0 : { request: options.request });
  const components = [];
  for (const c of options.components) {
    if (typeof c === "string") components.push(parseComponentIdentifier(c));
    else if (typeof c === "object" && c !== null && typeof c.name === "string" && c.params instanceof Map) components.push(c);
    else throw new TypeError("components must be strings or component identifiers");
  }
  const params = toParams(options.params);
  const typed = signatureParams(params);
  if (typed.alg !== void 0 && toAlgorithmName(typed.alg) !== key.alg) {
    throw new BotsigError("ERR_ALG_MISMATCH", "the alg parameter does not match the signing key");
  }
  const existing = existingLabels(msg);
  let label = options.label;
  if (label === void 0) {
    label = nextLabel(existing.labels);
  } else {
    if (!isValidLabel(label)) throw new TypeError('label must be a Structured Field key (lowercase, e.g. "sig1")');
    if (existing.labels.has(label)) throw new BotsigError("ERR_LABEL_EXISTS", `label ${label} is already used in the message`);
  }
  for (const c of components) {
    if (c.name === "@query-param" && componentValues(msg, c, options).length > 1) {
      throw new BotsigError("ERR_COMPONENT_INVALID", "@query-param names a repeated query parameter (RFC 9421 \xA72.2.8); cover @query instead");
    }
  }
  const input = { label, components, params };
  const { base, signatureParams: inputValue } = createSignatureBaseParts(msg, input, options);
  const signature = await signBase(key, base);
  const member = label + "=" + inputValue;
  const sigMember = label + "=:" + base64Encode(signature) + ":";
  return {
    label,
    input,
    base,
    signature,
    headers: {
      "signature-input": existing.input === void 0 || existing.input === "" ? member : existing.input + ", " + member,
      signature: existing.signature === void 0 || existing.signature === "" ? sigMember : existing.signature + ", " + sigMember
    }
  };
}

// ../head/src/httpsig.ts
init_verify();
init_base2();
init_components();
init_signature_input();
init_message();

// ../head/src/httpsig/raw.ts
init_errors();
var TCHAR3 = new Uint8Array(128);
for (const ch of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR3[ch.charCodeAt(0)] = 1;
function isToken3(s) {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || TCHAR3[c] !== 1) return false;
  }
  return true;
}
function invalid3(what, line) {
  return new BotsigError("ERR_MESSAGE_INVALID", line === void 0 ? `raw HTTP message: ${what}` : `raw HTTP message: ${what} (line ${line})`);
}
function readLine(text, from) {
  const nl = text.indexOf("\n", from);
  if (nl < 0) return { start: from, end: text.length, next: text.length };
  const end = nl > from && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
  return { start: from, end, next: nl + 1 };
}
function isVersion(s) {
  if (!s.startsWith("HTTP/")) return false;
  const n = s.length;
  const d = (i) => {
    const c = s.charCodeAt(i);
    return c >= 48 && c <= 57;
  };
  if (n === 6) return d(5);
  return n === 8 && d(5) && s.charCodeAt(6) === 46 && d(7);
}
function hasBadFieldChar(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 && c !== 9 || c === 127) return true;
  }
  return false;
}
function isWS2(c) {
  return c === 32 || c === 9;
}
function trimWS2(s) {
  let a = 0;
  let b = s.length;
  while (a < b && isWS2(s.charCodeAt(a))) a++;
  while (b > a && isWS2(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}
function isAuthority2(s) {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 32 || c >= 127 || c === 47 || c === 63 || c === 35 || c === 64 || c === 92) return false;
  }
  return true;
}
function isTargetText(s) {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 32 || c >= 127) return false;
  }
  return true;
}
function isAbsoluteForm(s) {
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const alpha = c >= 65 && c <= 90 || c >= 97 && c <= 122;
    if (alpha) continue;
    if (i > 0 && (c >= 48 && c <= 57 || c === 43 || c === 45 || c === 46)) continue;
    break;
  }
  return i > 0 && s.startsWith("://", i);
}
function readFields(text, from, fields, lineNo) {
  let pos = from;
  let open;
  const close = () => {
    if (open === void 0) return;
    const value = trimWS2(text.slice(open.start, open.end));
    fields.push([open.name, value]);
    open = void 0;
  };
  while (pos < text.length) {
    const line = readLine(text, pos);
    lineNo++;
    if (line.end === line.start) {
      close();
      return { next: line.next, ended: true, lineNo };
    }
    const raw = text.slice(line.start, line.end);
    if (hasBadFieldChar(raw)) throw invalid3("control character in a field line", lineNo);
    if (isWS2(raw.charCodeAt(0))) {
      if (open === void 0) throw invalid3("continuation line without a field before it", lineNo);
      open.end = line.end;
    } else {
      close();
      const colon = raw.indexOf(":");
      if (colon <= 0) throw invalid3("field line without a name and colon", lineNo);
      const name = raw.slice(0, colon);
      if (!isToken3(name)) throw invalid3("field name is not a token", lineNo);
      open = { name, start: line.start + colon + 1, end: line.end };
    }
    pos = line.next;
  }
  close();
  return { next: text.length, ended: false, lineNo };
}
function hexValue4(c) {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}
var MAX_CHUNK_HEX_DIGITS = 8;
function decodeChunked(text, from, trailers, lineNo) {
  let pos = from;
  let body = "";
  for (; ; ) {
    if (pos >= text.length) throw invalid3("chunked content ends before the last chunk", lineNo);
    const line = readLine(text, pos);
    lineNo++;
    let size = 0;
    let i = line.start;
    for (; i < line.end; i++) {
      const h = hexValue4(text.charCodeAt(i));
      if (h < 0) break;
      if (i - line.start >= MAX_CHUNK_HEX_DIGITS) throw invalid3("chunk size too large", lineNo);
      size = size * 16 + h;
    }
    if (i === line.start) throw invalid3("chunk size is not hexadecimal", lineNo);
    let j = i;
    while (j < line.end && isWS2(text.charCodeAt(j))) j++;
    if (j < line.end && text.charCodeAt(j) !== 59) throw invalid3("chunk size is not hexadecimal", lineNo);
    pos = line.next;
    if (size === 0) break;
    if (pos + size > text.length) throw invalid3("chunk is shorter than its size", lineNo);
    body += text.slice(pos, pos + size);
    pos += size;
    if (text.charCodeAt(pos) === 13 && text.charCodeAt(pos + 1) === 10) pos += 2;
    else if (text.charCodeAt(pos) === 10) pos += 1;
    else throw invalid3("chunk data is not followed by a line break", lineNo);
    lineNo++;
  }
  const rest = readFields(text, pos, trailers, lineNo);
  if (rest.ended && rest.next < text.length) throw invalid3("text after the end of the chunked message");
  return body;
}
function isChunked(fields) {
  let last = "";
  for (const [name, value] of fields) {
    if (name.length !== 17 || name.toLowerCase() !== "transfer-encoding") continue;
    const codings = value.split(",");
    const c = trimWS2(codings[codings.length - 1] ?? "");
    if (c !== "") last = c.toLowerCase();
  }
  return last === "chunked";
}
function parseRawHttpMessage(text, options) {
  if (typeof text !== "string") throw new TypeError("raw HTTP message must be a string");
  const scheme = options?.scheme ?? "https";
  if (scheme !== "http" && scheme !== "https") throw new TypeError("options.scheme must be 'http' or 'https'");
  let pos = 0;
  let lineNo = 0;
  let first = readLine(text, pos);
  lineNo++;
  while (first.end === first.start && first.next < text.length) {
    pos = first.next;
    first = readLine(text, pos);
    lineNo++;
  }
  if (first.end === first.start) throw invalid3("no start line");
  const startLine = text.slice(first.start, first.end);
  const sp1 = startLine.indexOf(" ");
  if (sp1 <= 0) throw invalid3("start line is not a request or status line", lineNo);
  const headers = [];
  const out = { headers, version: "" };
  if (startLine.startsWith("HTTP/")) {
    const version = startLine.slice(0, sp1);
    const code = startLine.slice(sp1 + 1, sp1 + 4);
    const after = startLine.slice(sp1 + 4);
    if (!isVersion(version) || code.length !== 3 || !/^[1-9][0-9][0-9]$/.test(code)) {
      throw invalid3("status line is malformed", lineNo);
    }
    if (after !== "" && after.charCodeAt(0) !== 32) throw invalid3("status line is malformed", lineNo);
    const reason = after.slice(1);
    if (hasBadFieldChar(reason)) throw invalid3("status line is malformed", lineNo);
    out.version = version;
    out.status = Number(code);
    out.reason = reason;
  } else {
    const sp2 = startLine.indexOf(" ", sp1 + 1);
    if (sp2 < 0 || startLine.indexOf(" ", sp2 + 1) >= 0) throw invalid3("request line is malformed", lineNo);
    const method = startLine.slice(0, sp1);
    const target = startLine.slice(sp1 + 1, sp2);
    const version = startLine.slice(sp2 + 1);
    if (!isToken3(method) || !isTargetText(target) || !isVersion(version)) throw invalid3("request line is malformed", lineNo);
    out.method = method;
    out.target = target;
    out.version = version;
  }
  const fields = readFields(text, first.next, headers, lineNo);
  lineNo = fields.lineNo;
  if (fields.ended) {
    if (isChunked(headers)) {
      const trailers = [];
      out.body = decodeChunked(text, fields.next, trailers, lineNo);
      if (trailers.length > 0) out.trailers = trailers;
    } else {
      out.body = text.slice(fields.next);
    }
  }
  if (out.target !== void 0) out.url = targetUri(out.method, out.target, headers, scheme);
  return out;
}
function targetUri(method, target, headers, scheme) {
  if (isAbsoluteForm(target)) return target;
  if (method === "CONNECT") {
    if (!isAuthority2(target)) throw invalid3("CONNECT target is not an authority");
    return scheme + "://" + target;
  }
  let host;
  for (const [name, value] of headers) {
    if (name.length !== 4 || name.toLowerCase() !== "host") continue;
    if (host !== void 0) throw invalid3("more than one Host field");
    host = value;
  }
  if (host === void 0) throw invalid3("request without Host and without an absolute-form target");
  if (!isAuthority2(host)) throw invalid3("Host is not an authority");
  if (target === "*") {
    if (method !== "OPTIONS") throw invalid3("asterisk-form target is only for OPTIONS");
    return scheme + "://" + host;
  }
  if (target.charCodeAt(0) !== 47) throw invalid3("request target is not in origin, absolute, authority or asterisk form");
  return scheme + "://" + host + target;
}

// ../head/src/httpsig.ts
init_keys();
init_sf();
init_errors();

// ../head/src/node.ts
var node_exports = {};
__export(node_exports, {
  DEFAULT_GUARDED_FETCH_TIMEOUT_MS: () => DEFAULT_GUARDED_FETCH_TIMEOUT_MS,
  createGuardedFetch: () => createGuardedFetch,
  createNodeMiddleware: () => createNodeMiddleware,
  createNodeVerifier: () => createNodeVerifier,
  fromKeyObject: () => fromKeyObject,
  importPem: () => importPem,
  importPrivatePem: () => importPrivatePem,
  importPublicPem: () => importPublicPem,
  installNodeCryptoProvider: () => installNodeCryptoProvider,
  installNodeDefaults: () => installNodeDefaults,
  keyObjectToJwk: () => keyObjectToJwk,
  nodeCryptoProvider: () => nodeCryptoProvider,
  toMessage: () => toMessage,
  writeRejection: () => writeRejection
});

// ../head/src/node/defaults.ts
init_default_fetch();

// ../head/src/node/crypto-provider.ts
init_errors();
init_registry();
init_provider();
var nodeCrypto;
function crypto() {
  if (nodeCrypto === void 0) {
    const load = globalThis.process?.getBuiltinModule;
    if (typeof load !== "function")
      throw new BotsigError("ERR_CRYPTO_UNSUPPORTED", "the node:crypto provider needs Node 20.16 or later (process.getBuiltinModule)");
    nodeCrypto = load("node:crypto");
  }
  return nodeCrypto;
}
function keyArgument(key, options) {
  if (options.dsaEncoding === void 0 && options.padding === void 0) return key;
  const arg = { key };
  if (options.dsaEncoding !== void 0) arg.dsaEncoding = options.dsaEncoding;
  if (options.padding !== void 0) arg.padding = options.padding === "pss" ? crypto().constants.RSA_PKCS1_PSS_PADDING : crypto().constants.RSA_PKCS1_PADDING;
  if (options.saltLength !== void 0) arg.saltLength = options.saltLength;
  return arg;
}
function rejected(error, alg) {
  if (isBotsigError(error)) return error;
  return new BotsigError("ERR_KEY_INVALID", `node:crypto rejected the key material for ${alg}`, { cause: error });
}
function nodeVerifier(key, alg) {
  const options = algorithmSpec(alg).node;
  const arg = keyArgument(key, options);
  const hash = options.hash;
  const verify3 = crypto().verify;
  return (data, signature) => verify3(hash, data, arg, signature);
}
function nodeSigner(key, alg) {
  const options = algorithmSpec(alg).node;
  const arg = keyArgument(key, options);
  const hash = options.hash;
  const sign2 = crypto().sign;
  return (data) => {
    const out = sign2(hash, data, arg);
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  };
}
var nodeCryptoProvider = Object.freeze({
  name: "node",
  synchronous: true,
  async importVerify(jwk, alg) {
    let key;
    try {
      key = crypto().createPublicKey({ key: jwk, format: "jwk" });
    } catch (error) {
      throw rejected(error, alg);
    }
    return nodeVerifier(key, alg);
  },
  async importSign(jwk, alg) {
    let key;
    try {
      key = crypto().createPrivateKey({ key: jwk, format: "jwk" });
    } catch (error) {
      throw rejected(error, alg);
    }
    return nodeSigner(key, alg);
  }
});
function installNodeCryptoProvider() {
  setCryptoProvider(nodeCryptoProvider);
}

// ../head/src/node/defaults.ts
var installed = false;
function installNodeDefaults() {
  installNodeCryptoProvider();
  if (installed) return;
  installed = true;
  setDefaultDirectoryFetch((context) => {
    let guarded;
    return (input, init) => {
      guarded ??= Promise.resolve().then(() => (init_guarded_fetch(), guarded_fetch_exports)).then(
        ({ createGuardedFetch: createGuardedFetch2 }) => createGuardedFetch2({
          allow: { loopback: context.allow.loopback, privateNetworks: context.allow.privateNetworks, hosts: context.allow.hosts },
          timeoutMs: context.timeoutMs,
          ...context.userAgent === void 0 ? {} : { userAgent: context.userAgent }
        })
      );
      return guarded.then((fetch) => fetch(input, init));
    };
  });
}

// ../head/src/node/keys.ts
init_errors();
init_keys();
import { createPrivateKey, createPublicKey } from "node:crypto";
function invalid4(message, cause) {
  return new BotsigError("ERR_KEY_INVALID", message, cause === void 0 ? void 0 : { cause });
}
function readTlv(der, offset, tag) {
  if (offset + 2 > der.length || der[offset] !== tag) throw invalid4("unexpected DER structure in RSASSA-PSS key");
  let length = der[offset + 1];
  let start = offset + 2;
  if (length & 128) {
    const count = length & 127;
    if (count === 0 || count > 4 || start + count > der.length) throw invalid4("unexpected DER length in RSASSA-PSS key");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[start + i];
    start += count;
  }
  const end = start + length;
  if (end > der.length) throw invalid4("truncated DER in RSASSA-PSS key");
  return { start, end };
}
function rsaPssToRsa(key) {
  try {
    if (key.type === "private") {
      const der2 = new Uint8Array(key.export({ format: "der", type: "pkcs8" }));
      const outer2 = readTlv(der2, 0, 48);
      const version = readTlv(der2, outer2.start, 2);
      const algorithm2 = readTlv(der2, version.end, 48);
      const inner = readTlv(der2, algorithm2.end, 4);
      return createPrivateKey({ key: Buffer.from(der2.subarray(inner.start, inner.end)), format: "der", type: "pkcs1" });
    }
    const der = new Uint8Array(key.export({ format: "der", type: "spki" }));
    const outer = readTlv(der, 0, 48);
    const algorithm = readTlv(der, outer.start, 48);
    const bits = readTlv(der, algorithm.end, 3);
    if (der[bits.start] !== 0) throw invalid4("unexpected BIT STRING padding in RSASSA-PSS key");
    return createPublicKey({ key: Buffer.from(der.subarray(bits.start + 1, bits.end)), format: "der", type: "pkcs1" });
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw invalid4("the RSASSA-PSS key could not be read", error);
  }
}
function keyObjectToJwk(key) {
  if (key.type === "secret") throw new BotsigError("ERR_ALG_NOT_ALLOWED", "symmetric (shared-secret) keys are not allowed");
  const source = key.asymmetricKeyType === "rsa-pss" ? rsaPssToRsa(key) : key;
  try {
    return source.export({ format: "jwk" });
  } catch (error) {
    throw invalid4("this key type cannot be expressed as a JWK", error);
  }
}
function defaultAlg(key, alg) {
  if (key.asymmetricKeyType !== "rsa-pss") return alg;
  const details = key.asymmetricKeyDetails;
  const restricted = details?.hashAlgorithm !== void 0 && details.hashAlgorithm !== "sha512" || details?.mgf1HashAlgorithm !== void 0 && details.mgf1HashAlgorithm !== "sha512" || details?.saltLength !== void 0 && details.saltLength > 64;
  if (restricted || alg !== void 0 && alg !== "rsa-pss-sha512") {
    throw new BotsigError("ERR_ALG_MISMATCH", "the RSASSA-PSS key parameters do not allow rsa-pss-sha512");
  }
  return "rsa-pss-sha512";
}
function importOptions(key, options) {
  const alg = defaultAlg(key, options?.alg);
  const provider = options?.provider ?? nodeCryptoProvider;
  return alg === void 0 ? { provider } : { alg, provider };
}
async function fromKeyObject(key, options) {
  if (typeof key !== "object" || key === null || typeof key.export !== "function") {
    throw new TypeError("key must be a node:crypto KeyObject");
  }
  const jwk = keyObjectToJwk(key);
  const opts = importOptions(key, options);
  return key.type === "private" ? importSigningKey(jwk, opts) : importVerifyingKey(jwk, opts);
}
function parsePem(pem, options, wantPrivate) {
  try {
    if (wantPrivate) {
      return options?.passphrase === void 0 ? createPrivateKey({ key: pem, format: "pem" }) : createPrivateKey({ key: pem, format: "pem", passphrase: options.passphrase });
    }
    return createPublicKey({ key: pem, format: "pem" });
  } catch (error) {
    throw invalid4(wantPrivate ? "the PEM does not hold a readable private key" : "the PEM does not hold a readable public key or certificate", error);
  }
}
function checkPem(pem) {
  if (typeof pem !== "string") throw new TypeError("pem must be a string");
}
async function importPrivatePem(pem, options) {
  checkPem(pem);
  const key = parsePem(pem, options, true);
  return importSigningKey(keyObjectToJwk(key), importOptions(key, options));
}
async function importPublicPem(pem, options) {
  checkPem(pem);
  const key = parsePem(pem, options, false);
  return importVerifyingKey(keyObjectToJwk(key), importOptions(key, options));
}
async function importPem(pem, options) {
  checkPem(pem);
  return pem.includes("PRIVATE KEY-----") ? importPrivatePem(pem, options) : importPublicPem(pem, options);
}

// ../head/src/node.ts
init_guarded_fetch();

// ../head/src/node/body.ts
init_errors();
var EMPTY2 = new Uint8Array(0);
var readers = /* @__PURE__ */ new WeakMap();
function nodeBodyReader(req) {
  return (maxBytes) => {
    let pending = readers.get(req);
    if (pending === void 0) {
      pending = readAndRestore(req, maxBytes);
      readers.set(req, pending);
    }
    return pending;
  };
}
function bodyWasRead(req) {
  return readers.has(req);
}
function tooLarge2(maxBytes) {
  return new BotsigError("ERR_BODY_TOO_LARGE", `the request content is larger than the ${maxBytes}-byte limit (maxBodyBytes)`);
}
function unavailable2(why, cause) {
  return new BotsigError("ERR_BODY_UNAVAILABLE", `the request content cannot be read: ${why}`, cause === void 0 ? void 0 : { cause });
}
function header2(req, name) {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}
function receivedEnd(req) {
  const state = req._readableState;
  if (state !== void 0 && typeof state.ended === "boolean") return state.ended;
  return req.complete === true && req.readableLength === 0;
}
async function readAndRestore(req, maxBytes) {
  if (req.readableEnded || req.readableDidRead || req.destroyed) {
    const raw = req.rawBody;
    if (raw instanceof Uint8Array) {
      if (raw.byteLength > maxBytes) throw tooLarge2(maxBytes);
      return raw;
    }
    throw unavailable2("the request body was already read (mount botsig before body parsers)");
  }
  const declared = header2(req, "content-length");
  if (declared !== void 0 && /^\s*\d{1,16}\s*$/.test(declared)) {
    const length = Number(declared);
    if (length > maxBytes) throw tooLarge2(maxBytes);
    if (length === 0) return EMPTY2;
  } else if (declared === void 0 && req.httpVersionMajor < 2 && header2(req, "transfer-encoding") === void 0) {
    return EMPTY2;
  }
  return new Promise((resolve, reject) => {
    const chunks = [];
    let total = 0;
    let settled = false;
    const settle = (error) => {
      if (settled) return;
      settled = true;
      req.removeListener("readable", onReadable);
      req.removeListener("end", onEnd);
      req.removeListener("error", onError);
      req.removeListener("close", onClose);
      const bytes2 = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
      if (total > 0 && !req.readableEnded && !req.destroyed) req.unshift(bytes2);
      if (error === void 0) resolve(bytes2);
      else reject(error);
    };
    const onReadable = () => {
      for (let chunk = req.read(); chunk !== null; chunk = req.read()) {
        const bytes2 = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
        chunks.push(bytes2);
        total += bytes2.byteLength;
        if (total > maxBytes) return settle(tooLarge2(maxBytes));
      }
      if (receivedEnd(req)) settle(void 0);
    };
    const onEnd = () => settle(void 0);
    const onError = (error) => settle(unavailable2("the request stream failed", error));
    const onClose = () => settle(unavailable2("the connection closed before the request content ended"));
    req.on("readable", onReadable);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

// ../head/src/node/http.ts
function toMessage(req, options = {}) {
  const raw = req.rawHeaders;
  if (!Array.isArray(raw)) throw new TypeError("toMessage needs a node:http or node:http2 request");
  const headers = /* @__PURE__ */ Object.create(null);
  let host;
  let hosts = 0;
  let pseudoAuthority;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    const value = raw[i + 1];
    if (name.charCodeAt(0) === 58) {
      if (name === ":authority") pseudoAuthority = value;
      continue;
    }
    const key = name.toLowerCase();
    const prev = headers[key];
    if (prev === void 0) headers[key] = value;
    else if (typeof prev === "string") headers[key] = [prev, value];
    else prev.push(value);
    if (key === "host") {
      host = value;
      hosts++;
    }
  }
  const socket = req.socket;
  let scheme = socket?.encrypted === true ? "https" : "http";
  let authority = req.httpVersionMajor >= 2 ? pseudoAuthority ?? (hosts === 1 ? host : void 0) : hosts === 1 ? host : void 0;
  const method = req.method ?? "GET";
  const originalUrl = req.originalUrl;
  const requestTarget = typeof originalUrl === "string" ? originalUrl : req.url ?? "";
  let path = requestTarget;
  let target;
  const first = requestTarget.charCodeAt(0);
  if (first !== 47) {
    target = requestTarget;
    path = "/";
    if (requestTarget !== "*") {
      const absolute = absoluteForm(requestTarget);
      if (absolute !== void 0) {
        authority = absolute.authority;
        path = absolute.path;
      } else if (method === "CONNECT") {
        authority = requestTarget;
      } else {
        authority = void 0;
      }
    }
  }
  const trust = options.trustProxy ?? false;
  if (trust !== false) {
    const forwarded = forwardedOrigin((name) => joinLines2(headers[name]), trust, socket?.remoteAddress);
    if (forwarded?.proto !== void 0) scheme = forwarded.proto;
    if (forwarded?.host !== void 0) authority = forwarded.host;
  }
  const message = { method, headers, body: nodeBodyReader(req) };
  if (authority !== void 0 && isValidAuthority(authority)) message.url = scheme + "://" + authority + path;
  if (target !== void 0) message.target = target;
  else if (message.url === void 0 && path.charCodeAt(0) === 47) message.target = requestTarget;
  return message;
}
function joinLines2(value) {
  return value === void 0 || typeof value === "string" ? value : value.join(", ");
}
function absoluteForm(target) {
  const lower = target.slice(0, 8).toLowerCase();
  const start = lower.startsWith("https://") ? 8 : lower.startsWith("http://") ? 7 : -1;
  if (start < 0) return void 0;
  let end = start;
  while (end < target.length) {
    const c = target.charCodeAt(end);
    if (c === 47 || c === 63 || c === 35) break;
    end++;
  }
  const authority = target.slice(start, end);
  if (authority.indexOf("@") >= 0) return void 0;
  const rest = target.slice(end);
  return { authority, path: rest.charCodeAt(0) === 47 ? rest : "/" + rest };
}
function createNodeVerifier(options = {}) {
  if (typeof options !== "object" || options === null) throw new TypeError("createNodeVerifier options must be an object");
  installNodeDefaults();
  return createVerifier(options);
}
function resolveNodeVerifier(verifierOrOptions) {
  if (isVerifier(verifierOrOptions)) return verifierOrOptions;
  return createNodeVerifier(verifierOrOptions ?? {});
}
function createNodeMiddleware(verifierOrOptions) {
  const verifier = resolveNodeVerifier(verifierOrOptions);
  warnIfNoAuthorities(verifier, "node");
  const trustProxy = verifier.trustProxy;
  return async function botsigMiddleware(req, res, next) {
    try {
      const { result, challenge } = await verifier.handle(toMessage(req, { trustProxy }));
      req.botsig = result;
      if (challenge !== void 0) {
        await writeRejection(res, challenge);
        if (bodyWasRead(req) && !req.readableEnded) req.resume();
        return;
      }
    } catch (error) {
      if (next === void 0) throw error;
      next(error);
      return;
    }
    next?.();
  };
}
async function writeRejection(res, rejection) {
  if (rejection instanceof Response) {
    res.statusCode = rejection.status;
    const cookies = rejection.headers.getSetCookie();
    rejection.headers.forEach((value, name) => {
      if (name !== "set-cookie") res.setHeader(name, value);
    });
    if (cookies.length > 0) res.setHeader("set-cookie", cookies);
    const body = rejection.body === null ? void 0 : new Uint8Array(await rejection.arrayBuffer());
    endWith(res, body);
    return;
  }
  res.statusCode = rejection.status;
  const headers = rejectionHeaders(rejection);
  for (const name of Object.keys(headers)) res.setHeader(name, headers[name]);
  endWith(res, rejection.reason ?? "");
}
function endWith(res, body) {
  res.end(body);
}

// ../head/src/node.ts
installNodeDefaults();
export {
  src_exports as a,
  httpsig_exports as ah,
  node_exports as an,
  src_exports as b,
  node_exports as bn
};
