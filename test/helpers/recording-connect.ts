/**
 * A socket factory for `createGuardedFetch({ connect })` in tests: it records every
 * target, and opens a real socket only to a loopback address (127.0.0.0/8, ::1, and
 * their IPv4-mapped forms); `refuseAll` refuses every target.
 */
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GuardedConnectTarget } from '../../src/node/guarded-fetch';

export type RecordingConnect = ((target: GuardedConnectTarget) => Duplex) & { readonly targets: GuardedConnectTarget[] };

/** Whether `address` (brackets allowed) is a loopback address. */
export function isLoopbackAddress(address: unknown): boolean {
  if (typeof address !== 'string') return false;
  const a = address.startsWith('[') ? address.slice(1, -1) : address;
  return (
    a === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(a) ||
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/i.test(a)
  );
}

export function recordingConnect(options: { readonly refuseAll?: boolean } = {}): RecordingConnect {
  const targets: GuardedConnectTarget[] = [];
  const connect = (target: GuardedConnectTarget): Duplex => {
    targets.push(target);
    if (options.refuseAll === true || !isLoopbackAddress(target.address)) throw new Error('recording connect: refused');
    return netConnect({ host: target.address, port: target.port });
  };
  return Object.assign(connect, { targets });
}
