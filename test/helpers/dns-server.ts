/**
 * A DNS server on 127.0.0.1 (UDP, port 0) for tests of code that asks DNS itself
 * (RFC 1035 §4.1 messages): it answers A and AAAA questions from a zone given as a
 * table, answers NXDOMAIN for names outside it, and never answers a name marked
 * `silent` (a name server that drops queries). It records every question.
 */
import { createSocket } from 'node:dgram';

/** What the server answers for one name. */
export interface DnsRecords {
  readonly a?: readonly string[];
  readonly aaaa?: readonly string[];
  /** Drop every question for this name. */
  readonly silent?: boolean;
  /** Drop the first question of each type for this name, answer the ones after (a lost packet). */
  readonly dropFirst?: boolean;
}

/** One question the server received. */
export interface DnsQuestion {
  readonly name: string;
  /** 1 (A), 28 (AAAA) or another QTYPE. */
  readonly type: number;
  /** `performance.now()` when it arrived. */
  readonly at: number;
}

export interface LoopbackDnsServer {
  /** `127.0.0.1:<port>`, as `dnsServers` takes it. */
  readonly address: string;
  readonly questions: DnsQuestion[];
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

/** Starts the server with `zone` (lowercase names, no trailing dot; `*.example.test` covers every name below it). */
export async function startDnsServer(zone: Readonly<Record<string, DnsRecords>>): Promise<LoopbackDnsServer> {
  const socket = createSocket('udp4');
  const questions: DnsQuestion[] = [];
  socket.on('message', (message, from) => {
    const question = readQuestion(message);
    if (question === undefined) return;
    questions.push({ name: question.name, type: question.type, at: performance.now() });
    const records = zone[question.name] ?? zone[`*${question.name.slice(question.name.indexOf('.'))}`];
    if (records?.silent === true) return;
    if (records?.dropFirst === true && questions.filter((q) => q.name === question.name && q.type === question.type).length === 1) return;
    const addresses = question.type === TYPE_A ? (records?.a ?? []) : question.type === TYPE_AAAA ? (records?.aaaa ?? []) : [];
    socket.send(answer(message, question.end, records === undefined ? 3 : 0, question.type, addresses), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The first question's name, type and where it ends; `undefined` for anything malformed. */
function readQuestion(message: Buffer): { name: string; type: number; end: number } | undefined {
  if (message.length < 12 || message.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let i = 12;
  for (;;) {
    const length = message[i];
    if (length === undefined || length > 63) return undefined;
    i++;
    if (length === 0) break;
    labels.push(message.toString('latin1', i, i + length).toLowerCase());
    i += length;
  }
  if (i + 4 > message.length) return undefined;
  return { name: labels.join('.'), type: message.readUInt16BE(i), end: i + 4 };
}

/** The response: the question copied, `rcode`, one record per address (the name as a pointer to the question's). */
function answer(query: Buffer, questionEnd: number, rcode: number, type: number, addresses: readonly string[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  header[2] = 0x84 | (query[2]! & 0x01); // QR, AA, the query's RD
  header[3] = 0x80 | rcode; // RA
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const data = type === TYPE_A ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}

function ipv6Bytes(text: string): Buffer {
  const [head, tail] = text.split('::') as [string, string | undefined];
  const first = head === '' ? [] : head.split(':');
  const last = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? first : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  const out = Buffer.alloc(16);
  groups.forEach((group, k) => out.writeUInt16BE(Number.parseInt(group, 16), 2 * k));
  return out;
}
