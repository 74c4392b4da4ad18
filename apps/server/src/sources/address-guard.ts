import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { UpstreamNetworkError } from './errors';

/** The internal code of a connection refused because it would reach a private address. */
export const ADDRESS_NOT_ALLOWED = 'EADDRNOTALLOWED';

/**
 * Whether an IP address is on the public internet: not loopback, link-local, private (RFC 1918), unique local,
 * carrier-grade NAT, multicast, reserved or unspecified (IPv4-mapped IPv6 addresses are judged as IPv4).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

function refused(host: string): UpstreamNetworkError {
  return new UpstreamNetworkError(`${host} is not a public address`, ADDRESS_NOT_ALLOWED);
}

/**
 * Refuses a URL whose host is written as a non-public IP address or names this machine; a host name is checked
 * again after DNS by `publicOnlyLookup`, at every connection (so a name that later resolves elsewhere is caught).
 */
export function assertPublicUrl(url: string): void {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) ? !isPublicAddress(host) : /^(localhost|.*\.localhost)$/i.test(host))
    throw refused(host);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for net/tls connections that fails when a resolved address is not public. */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses;
    if (list.length === 0 || list.some((a) => !isPublicAddress(a.address))) {
      const error: NodeJS.ErrnoException = new Error(`${hostname} does not resolve to public addresses only`);
      error.code = ADDRESS_NOT_ALLOWED;
      return callback(error, '');
    }
    if (options.all) return callback(null, list);
    const first = list[0]!;
    callback(null, first.address, first.family);
  });
}
