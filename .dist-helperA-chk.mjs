var __defProp = Object.defineProperty;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __esm = (fn, res) => function __init() {
  return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// ../../../work/main/src/core/base64.ts
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
function encode(bytes, alphabet, pad) {
  const n = bytes.length;
  let out = "";
  for (let start = 0; start < n; start += ENCODE_CHUNK) {
    const stop = Math.min(n, start + ENCODE_CHUNK);
    out += encodeChunk(bytes, start, stop, alphabet, pad);
  }
  return out;
}
function encodeChunk(bytes, start, stop, alphabet, pad) {
  const whole = start + Math.floor((stop - start) / 3) * 3;
  const rest = stop - whole;
  const chars = new Array((whole - start) / 3 * 4 + (rest === 0 ? 0 : pad ? 4 : rest + 1));
  let o = 0;
  for (let i = start; i < whole; i += 3) {
    const v = bytes[i] << 16 | bytes[i + 1] << 8 | bytes[i + 2];
    chars[o++] = alphabet[v >>> 18];
    chars[o++] = alphabet[v >>> 12 & 63];
    chars[o++] = alphabet[v >>> 6 & 63];
    chars[o++] = alphabet[v & 63];
  }
  if (rest > 0) {
    const v = bytes[whole] << 16 | (rest === 2 ? bytes[whole + 1] << 8 : 0);
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
function base64Encode(bytes) {
  return encode(bytes, STD_CODES, true);
}
function base64UrlEncode(bytes) {
  return encode(bytes, URL_CODES, false);
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
  "../../../work/main/src/core/base64.ts"() {
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

// ../../../work/main/src/core/errors.ts
function hasBrand(value) {
  return typeof value === "object" && value !== null && value[BRAND] === true;
}
function isBotsigError(value) {
  if (hasBrand(value)) return true;
  return typeof value === "object" && value !== null && value.name === "BotsigError" && typeof value.code === "string";
}
var BRAND, BotsigError;
var init_errors = __esm({
  "../../../work/main/src/core/errors.ts"() {
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

// ../../../work/main/src/core/sf-syntax.ts
function has(c, cls) {
  return c < 128 && (CC[c] & cls) !== 0;
}
var DIGIT, LCALPHA, KEY, TOKEN, ALPHA, B64, LCHEX, CC, MAX_INTEGER;
var init_sf_syntax = __esm({
  "../../../work/main/src/core/sf-syntax.ts"() {
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

// ../../../work/main/src/core/sf-display-string.ts
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
  const bytes = new Uint8Array(stop - first - 2 * escapes);
  let o = 0;
  for (let i = first; i < stop; ) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      bytes[o++] = hexValue(s.charCodeAt(i + 1)) << 4 | hexValue(s.charCodeAt(i + 2));
      i += 3;
    } else {
      bytes[o++] = c;
      i++;
    }
  }
  try {
    return { value: utf8Decoder.decode(bytes), at: stop + 1 };
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
  "../../../work/main/src/core/sf-display-string.ts"() {
    "use strict";
    init_errors();
    init_sf_syntax();
    utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    HEX = "0123456789abcdef";
  }
});

// ../../../work/main/src/core/sf-items.ts
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
function item(value, params) {
  return { kind: "item", value, params: params ?? /* @__PURE__ */ new Map() };
}
var TRUE, FALSE;
var init_sf_items = __esm({
  "../../../work/main/src/core/sf-items.ts"() {
    "use strict";
    TRUE = Object.freeze({ type: "boolean", value: true });
    FALSE = Object.freeze({ type: "boolean", value: false });
  }
});

// ../../../work/main/src/core/sf-parse.ts
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
  "../../../work/main/src/core/sf-parse.ts"() {
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
        let digits = 0;
        for (; ; ) {
          const c = s.charCodeAt(p);
          if (c >= 48 && c <= 57) {
            if (++digits > 15) this.failAt(p, "integer with more than 15 digits");
            value = value * 10 + (c - 48);
            p++;
          } else if (c === 46) {
            if (digits > 12) this.failAt(p, "decimal with more than 12 integer digits");
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
          const decoded = base64DecodeRange(s, start, close);
          if (decoded !== void 0) {
            this.p = close + 1;
            return decoded;
          }
        }
        let p = start;
        for (; ; ) {
          const c = s.charCodeAt(p);
          if (c === 58) break;
          if (!has(c, B64)) this.failAt(p, p >= this.n ? "unterminated byte sequence" : "invalid character in byte sequence");
          p++;
        }
        const bytes = base64DecodeRange(s, start, p) ?? decodeWithPadBits(s.slice(start, p));
        if (bytes === void 0) this.failAt(start, "invalid base64 in byte sequence");
        this.p = p + 1;
        return bytes;
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

// ../../../work/main/src/core/sf-serialize.ts
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
  "../../../work/main/src/core/sf-serialize.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_sf_display_string();
    init_sf_syntax();
    PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
  }
});

// ../../../work/main/src/core/sf.ts
var init_sf = __esm({
  "../../../work/main/src/core/sf.ts"() {
    "use strict";
    init_sf_parse();
    init_sf_serialize();
    init_sf_items();
  }
});

// ../../../work/main/src/crypto/registry.ts
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
  "../../../work/main/src/crypto/registry.ts"() {
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

// ../../../work/main/src/crypto/noble.ts
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
  "../../../work/main/src/crypto/noble.ts"() {
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

// ../../../work/main/src/crypto/webcrypto.ts
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
  "../../../work/main/src/crypto/webcrypto.ts"() {
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

// ../../../work/main/src/httpsig/target-uri.ts
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
  "../../../work/main/src/httpsig/target-uri.ts"() {
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

// ../../../work/main/src/httpsig/header-map.ts
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
  "../../../work/main/src/httpsig/header-map.ts"() {
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

// ../../../work/main/src/httpsig/message.ts
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
  "../../../work/main/src/httpsig/message.ts"() {
    "use strict";
    init_header_map();
  }
});

// ../../../work/main/src/crypto/digest.ts
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
  const bytes = toBytes(body);
  checkAlgorithms(algorithms, "algorithms");
  if (algorithms.length === 0) throw new TypeError("algorithms must name at least one algorithm");
  const unique = [...new Set(algorithms)];
  const digests = await Promise.all(unique.map((a) => digest(a, bytes)));
  let out = "";
  for (let i = 0; i < unique.length; i++) {
    out += (i === 0 ? "" : ", ") + unique[i] + "=:" + base64Encode(digests[i]) + ":";
  }
  return out;
}
async function verifyContentDigest(header, body, options) {
  if (typeof header !== "string") throw new TypeError("header must be a string");
  const bytes = toBytes(body);
  const required = options?.require ?? [];
  checkAlgorithms(required, "options.require");
  let dict;
  try {
    dict = parseDictionary(header);
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
  const actual = await Promise.all(expected.map(([alg]) => digest(alg, bytes)));
  for (let i = 0; i < expected.length; i++) {
    if (!bytesEqual(actual[i], expected[i][1])) {
      throw new BotsigError("ERR_DIGEST_MISMATCH", `Content-Digest ${expected[i][0]} does not match the content`);
    }
  }
}
var WEBCRYPTO_NAME;
var init_digest = __esm({
  "../../../work/main/src/crypto/digest.ts"() {
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

// ../../../work/main/src/profile/body/read.ts
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
    const bytes = utf8(value);
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes;
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
function replayStream(bytes) {
  return new ReadableStream({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    }
  });
}
var EMPTY;
var init_read = __esm({
  "../../../work/main/src/profile/body/read.ts"() {
    "use strict";
    init_base64();
    init_errors();
    init_message();
    EMPTY = new Uint8Array(0);
  }
});

// ../../../work/main/src/profile/body/sign.ts
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
  const bytes = await readMessageBody(message, max);
  if (replaceStream !== void 0) replaceStream.body = replayStream(bytes);
  const existing = isHttpMessage(message) ? message.headers.get("content-digest") : toReceivedMessage(message).headers.get("content-digest");
  const value = existing === void 0 ? void 0 : joinLines(existing);
  if (value === void 0) return createContentDigest(bytes, [alg]);
  try {
    await verifyContentDigest(value, bytes);
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
  const own = Object.getOwnPropertyDescriptor(holder, "body");
  if (Object.isFrozen(holder) || own !== void 0 && own.writable !== true && own.set === void 0) {
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
  "../../../work/main/src/profile/body/sign.ts"() {
    "use strict";
    init_errors();
    init_digest();
    init_message();
    init_read();
    DEFAULT_SIGN_MAX_BODY_BYTES = 16 * 1024 * 1024;
  }
});

// chk.ts
import crypto from "node:crypto";

// ../../../work/main/src/httpsig/fast-fields.ts
init_base64();
init_sf_parse();
var MAX_INTEGER_DIGITS = 15;
var KEY_CHAR = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyz0123456789_-.*") KEY_CHAR[ch.charCodeAt(0)] = 1;
function keyEnd(s, i) {
  const c = s.charCodeAt(i);
  if (!(c >= 97 && c <= 122 || c === 42)) return -1;
  i++;
  while (KEY_CHAR[s.charCodeAt(i)] === 1) i++;
  return i;
}
var PLAIN_TEXT = /^[\x20-\x5b\x5d-\x7e]*$/;
function plainStringEnd(s, i) {
  const e = s.indexOf('"', i + 1);
  return e < 0 ? -1 : e + 1;
}
function nextMember(s, i) {
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  if (i >= s.length) return i;
  if (s.charCodeAt(i) !== 44) return -1;
  i++;
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  return i < s.length ? i : -1;
}
var NO_PARAMS = /* @__PURE__ */ new Map();
var CREATED = 1;
var EXPIRES = 2;
var KEYID = 4;
var NONCE = 8;
var TAG = 16;
var ALG = 32;
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
var DirectInput = class {
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
var InputReader = class {
  constructor(s) {
    this.s = s;
  }
  end = 0;
  /** Signature-Input in the common canonical shape, each input with its received text; `undefined` otherwise. */
  inputs() {
    const s = this.s;
    if (!PLAIN_TEXT.test(s)) return void 0;
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
    const bytes = base64DecodeRange(s, k + 2, close);
    if (bytes === void 0 || s.charCodeAt(close + 1) === 59) return void 0;
    out.set(label, bytes);
    i = nextMember(s, close + 1);
    if (i < 0) return void 0;
  }
  return out;
}

// ../../../work/main/src/profile/sign-request.ts
init_base64();
init_errors();
init_sf();

// ../../../work/main/src/core/time.ts
var systemClock = () => Date.now();
function toEpochSeconds(value, what) {
  const s = value instanceof Date ? Math.floor(value.getTime() / 1e3) : value;
  if (!Number.isSafeInteger(s)) throw new TypeError(`${what} must be a Date or an integer number of seconds`);
  return s;
}

// ../../../work/main/src/core/bounded-map.ts
var BoundedMap = class {
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

// ../../../work/main/src/core/process-wide.ts
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

// ../../../work/main/src/crypto/provider.ts
init_webcrypto();
var registry = processWide("crypto-provider.v1", () => ({ current: webCryptoProvider }));
function getCryptoProvider() {
  return registry.current;
}

// ../../../work/main/src/crypto/keys/cache.ts
var KEY_CACHE_MAX_ENTRIES = 1e3;
var SNAPSHOT_MEMBERS = ["kty", "crv", "x", "y", "n", "e", "d", "alg"];
function snapshot(jwk, requested) {
  return { requested, values: SNAPSHOT_MEMBERS.map((m) => jwk[m]) };
}
function sameSnapshot(s, jwk, requested) {
  if (s.requested !== requested) return false;
  for (let i = 0; i < SNAPSHOT_MEMBERS.length; i++) if (s.values[i] !== jwk[SNAPSHOT_MEMBERS[i]]) return false;
  return true;
}
var KeyCache = class {
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
var keyCache = new KeyCache();
function forgetIfSame(map, key, value) {
  if (map.get(key) === value) map.delete(key);
}

// ../../../work/main/src/crypto/keys/objects.ts
init_errors();
init_registry();
function isSigningKey(value) {
  const v = value;
  return typeof v === "object" && v !== null && typeof v.sign === "function" && typeof v.thumbprint === "string" && isAlgorithmName(v.alg) && typeof v.publicJwk === "object";
}
function toPlainBytes(bytes) {
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
var verifyInternals = processWide("verify-internals.v1", () => /* @__PURE__ */ new WeakMap());
var signInternals = processWide("sign-internals.v1", () => /* @__PURE__ */ new WeakMap());
var ONLY = new Map(ALGORITHMS.map((a) => [a, Object.freeze([a])]));
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

// ../../../work/main/src/crypto/keys/base.ts
init_base64();
init_errors();
var SCRATCH_MAX_BYTES = 1 << 16;
var ScratchEncoder = class {
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
var scratch = new ScratchEncoder();
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

// ../../../work/main/src/crypto/sha256.ts
var K = new Uint32Array([
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
var H0 = [1779033703, 3144134277, 1013904242, 2773480762, 1359893119, 2600822924, 528734635, 1541459225];
var W = new Uint32Array(64);
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

// ../../../work/main/src/crypto/thumbprint.ts
init_base64();
init_errors();
var REQUIRED = {
  RSA: ["e", "kty", "n"],
  EC: ["crv", "kty", "x", "y"],
  OKP: ["crv", "kty", "x"]
};
var MAX_MEMBER_CHARS = 16384;
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
function jwkThumbprintSync(jwk) {
  return base64UrlEncode(sha256(utf8(thumbprintInput(jwk))));
}

// ../../../work/main/src/crypto/keys/crypto-key.ts
init_errors();
init_registry();
init_webcrypto();

// ../../../work/main/src/crypto/keys/material.ts
init_base64();
init_errors();
init_registry();
var MAX_MEMBER_CHARS2 = 4096;
var NOT_PUBLIC = /* @__PURE__ */ new Set(["d", "p", "q", "dp", "dq", "qi", "oth", "k", "key_ops", "ext"]);
var SELF_TEST_MESSAGE = utf8("botsig: private and public key agree");
function invalid(message, cause) {
  return new BotsigError("ERR_KEY_INVALID", message, cause === void 0 ? void 0 : { cause });
}
function decodeMember(jwk, name) {
  const value = jwk[name];
  if (value === void 0) return void 0;
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_MEMBER_CHARS2 || value.charCodeAt(value.length - 1) === 61) {
    throw invalid(`JWK member "${name}" is not a base64url string`);
  }
  const bytes = base64UrlDecode(value);
  if (bytes === void 0) throw invalid(`JWK member "${name}" is not a base64url string`);
  return bytes;
}
function requireMember(jwk, name, length) {
  const bytes = decodeMember(jwk, name);
  if (bytes === void 0) throw invalid(`JWK member "${name}" is missing`);
  if (length !== void 0 && bytes.length !== length) throw invalid(`JWK member "${name}" must be ${length} bytes`);
  return bytes;
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
var MATERIAL_MEMBERS = { OKP: ["x"], EC: ["x", "y"], RSA: ["n", "e"] };
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

// ../../../work/main/src/crypto/keys/crypto-key.ts
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

// ../../../work/main/src/crypto/keys/signing.ts
init_errors();
init_registry();
init_webcrypto();
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
      const verify2 = await provider.importVerify(checked.publicMaterial, alg);
      let agrees = false;
      try {
        agrees = await verify2(SELF_TEST_MESSAGE, toPlainBytes(await sign2(SELF_TEST_MESSAGE))) === true;
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
async function importSigningCryptoKey(privateKey2, publicKey, requested) {
  let pending = keyCache.signByCryptoKey.get(privateKey2);
  if (pending === void 0) {
    pending = (async () => {
      if (privateKey2.type === "secret") throw new BotsigError("ERR_ALG_NOT_ALLOWED", "symmetric (shared-secret) keys are not allowed");
      if (privateKey2.type !== "private") throw invalid("signing needs a private CryptoKey");
      const alg = cryptoKeyAlgorithm(privateKey2, void 0);
      if (!privateKey2.usages.includes("sign")) throw invalid('the CryptoKey is not usable for "sign"');
      if (publicKey !== void 0) {
        if (publicKey.type !== "public") throw invalid("CryptoKeyPair.publicKey is not a public key");
        if (algorithmFromWebCryptoKey(publicKey.algorithm) !== alg)
          throw new BotsigError("ERR_ALG_MISMATCH", "the CryptoKeyPair halves use different algorithms");
      }
      const exported = await exportJwk(publicKey ?? privateKey2);
      const { jwk, thumbprint } = publicFromExported(exported, alg);
      const sign2 = webCryptoSigner(privateKey2, alg);
      if (publicKey !== void 0 && publicKey.usages.includes("verify")) {
        const agrees = await webCryptoVerifier(publicKey, alg)(SELF_TEST_MESSAGE, await sign2(SELF_TEST_MESSAGE));
        if (!agrees) throw invalid("the CryptoKeyPair halves do not belong together");
      }
      return makeSigningKey(alg, thumbprint, jwk, sign2, false);
    })();
    keyCache.signByCryptoKey.set(privateKey2, pending);
    const failed = pending;
    failed.catch(() => {
      if (keyCache.signByCryptoKey.get(privateKey2) === failed) keyCache.signByCryptoKey.delete(privateKey2);
    });
  }
  const result = await pending;
  if (requested !== void 0 && result.alg !== requested) throw new BotsigError("ERR_ALG_MISMATCH", `the CryptoKey is for ${result.alg}, not ${requested}`);
  return result;
}

// ../../../work/main/src/httpsig/base.ts
init_errors();
init_sf_serialize();

// ../../../work/main/src/httpsig/component-id.ts
init_errors();
init_sf_parse();
init_sf_serialize();
var FIELD_CHAR = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~") FIELD_CHAR[ch.charCodeAt(0)] = 1;
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

// ../../../work/main/src/httpsig/components.ts
init_errors();

// ../../../work/main/src/httpsig/derived.ts
init_errors();

// ../../../work/main/src/httpsig/query-param.ts
var FORM_SAFE = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._") FORM_SAFE[ch.charCodeAt(0)] = 1;
var HEX_CODES = new Uint8Array([..."0123456789ABCDEF"].map((ch) => ch.charCodeAt(0)));
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
var lastQuery;
var lastIndex = /* @__PURE__ */ new Map();
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
  const bytes = percentDecode(s, from, to);
  const text = decoder.decode(bytes);
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
var decoder = new TextDecoder("utf-8", { ignoreBOM: true });
var encoder2 = new TextEncoder();
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

// ../../../work/main/src/httpsig/derived.ts
init_target_uri();
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

// ../../../work/main/src/httpsig/field-values.ts
init_base64();
init_errors();
init_sf_parse();
init_sf_serialize();

// ../../../work/main/src/httpsig/field-lines.ts
init_errors();
var encoder3 = new TextEncoder();
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
var FIELD_LINE = /^[\t\x20-\x7e]*$/;
function normalizeLine(line, bytes) {
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
    if (!bytes) throw new BotsigError("ERR_COMPONENT_INVALID", "field value has control or non-ASCII characters (use ;bs)");
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
var CODES_CHUNK = 8192;
function fromCodes(codes2, length) {
  let s = "";
  for (let i = 0; i < length; i += CODES_CHUNK) {
    s += String.fromCharCode.apply(null, codes2.subarray(i, Math.min(length, i + CODES_CHUNK)));
  }
  return s;
}

// ../../../work/main/src/httpsig/structured-fields.ts
var STRUCTURED_FIELDS = /* @__PURE__ */ new Map([
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
function structuredFieldType(name, options) {
  const extra = options?.structuredFields;
  if (extra !== void 0 && Object.hasOwn(extra, name)) return extra[name];
  return STRUCTURED_FIELDS.get(name);
}

// ../../../work/main/src/httpsig/field-values.ts
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
var LONG_FIELD = 1024;
var longFields = /* @__PURE__ */ new WeakMap();
var shortDictionary = newMemo([]);
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

// ../../../work/main/src/httpsig/components.ts
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

// ../../../work/main/src/httpsig/signature-input.ts
init_errors();
init_sf_parse();
init_sf_serialize();
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
function parseSignatureInput(value) {
  const dict = parseSignatureDictionary(value, "ERR_SIGNATURE_INPUT_PARSE", "Signature-Input");
  const out = /* @__PURE__ */ new Map();
  for (const [label, member] of dict) out.set(label, memberToSignatureInput(label, member, "ERR_SIGNATURE_INPUT_PARSE"));
  return out;
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

// ../../../work/main/src/httpsig/base.ts
var LINEAR_DUPLICATE_SCAN = 16;
var SIGNATURE_PARAMS_LINE = '"@signature-params": ';
var NO_PARAMS2 = /* @__PURE__ */ new Map();
function signatureBaseFromTexts(message, components, idTexts, paramsText, options) {
  return signatureBase(message, components, NO_PARAMS2, idTexts, paramsText, options);
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

// ../../../work/main/src/profile/sign-request.ts
init_message();

// ../../../work/main/src/profile/sign/random-nonce.ts
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
    const bytes = this.pool.subarray(this.offset, this.offset + n);
    this.offset += n;
    return bytes;
  }
};
var randomPool = new RandomPool();
function randomNonce() {
  const bytes = randomPool.take(NONCE_BYTES);
  const nonce = base64UrlEncode(bytes);
  bytes.fill(0);
  return nonce;
}

// ../../../work/main/src/profile/signature-agent/types.ts
var DIRECTORY_MEDIA_TYPE = "application/http-message-signatures-directory+json";

// ../../../work/main/src/core/url.ts
var UNRESERVED = 1;
var SUB_DELIM = 2;
var GEN_DELIM = 4;
var CLASS = new Uint8Array(128);
for (let c = 48; c <= 57; c++) CLASS[c] = UNRESERVED;
for (let c = 65; c <= 90; c++) CLASS[c] = UNRESERVED;
for (let c = 97; c <= 122; c++) CLASS[c] = UNRESERVED;
for (const ch of "-._~") CLASS[ch.charCodeAt(0)] = UNRESERVED;
for (const ch of "!$&'()*+,;=") CLASS[ch.charCodeAt(0)] = SUB_DELIM;
for (const ch of ":/?#[]@") CLASS[ch.charCodeAt(0)] = GEN_DELIM;
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

// ../../../work/main/src/core/data-url.ts
init_base64();
init_errors();
var TCHAR = new Uint8Array(128);
for (let c = 48; c <= 57; c++) TCHAR[c] = 1;
for (let c = 65; c <= 90; c++) TCHAR[c] = 1;
for (let c = 97; c <= 122; c++) TCHAR[c] = 1;
for (const ch of "!#$%&'*+-.^_`|~") TCHAR[ch.charCodeAt(0)] = 1;
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
var LATIN1_CHUNK = 8192;
function latin1(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i += LATIN1_CHUNK) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + LATIN1_CHUNK));
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
    const decoded = base64AnyDecode(latin1(data));
    if (decoded === void 0) fail("base64");
    body = decoded;
  }
  if (maxBytes !== void 0 && body.length > maxBytes) fail("too large");
  return { mediaType, parameters, base64, body };
}

// ../../../work/main/src/profile/signature-agent/member.ts
function checkMember(url, type, allowHttp) {
  const colon = url.indexOf(":");
  if (colon <= 0) return { ok: false, code: "uri-not-absolute", message: "value is a relative reference, not an absolute URI" };
  const scheme = url.slice(0, colon).toLowerCase();
  if (scheme === "data") {
    if (type !== "directory") {
      return { ok: false, code: "data-requires-directory", message: `a data: value is allowed only with type=directory, not ${type}` };
    }
    let decoded;
    try {
      decoded = parseDataUrl(url);
    } catch {
      return { ok: false, code: "data-invalid", message: "data: value is not a well-formed data URL (RFC 2397)" };
    }
    if (decoded.mediaType !== DIRECTORY_MEDIA_TYPE) {
      return { ok: false, code: "data-media-type", message: `a data: value must have media type ${DIRECTORY_MEDIA_TYPE}` };
    }
    return { ok: true, scheme: "data", inline: { mediaType: decoded.mediaType, body: decoded.body } };
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

// ../../../work/main/src/profile/signature-agent/serialize.ts
init_errors();
init_sf();
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

// ../../../work/main/src/profile/sign/signer-state.ts
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

// ../../../work/main/src/profile/types.ts
var WEB_BOT_AUTH_TAG = "web-bot-auth";

// ../../../work/main/src/profile/sign-request.ts
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
  const fresh = existingInput === void 0 && existingSignature === void 0 && existingAgent === void 0;
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
  if (label === void 0) label = fresh ? "sig1" : nextLabel(taken);
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

// ../../../work/main/bench/request.mjs
var baseRequest = {
  method: "GET",
  url: "https://origin.example/articles/42?page=2",
  headers: {
    host: "origin.example",
    "user-agent": "ExampleBot/1.0 (+https://crawler.example/bot)",
    accept: "text/html,application/xhtml+xml",
    "accept-encoding": "gzip, br",
    "accept-language": "en"
  }
};

// chk.ts
var { privateKey } = crypto.generateKeyPairSync("ed25519");
var sk = await importSigningKey(privateKey.export({ format: "jwk" }));
var added = await signRequest(baseRequest, { key: sk, signatureAgent: "https://crawler.example", validitySeconds: 3600 });
console.log(added);
console.log(readReceivedInputs(added["signature-input"]));
console.log(readReceivedSignatures(added["signature"]));
