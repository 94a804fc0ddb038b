import { describe, expect, it } from 'vitest';
import { candidateDestination, iceServerDestinations, sdpDestinations } from './peers';

describe('iceServerDestinations', () => {
  it('turns STUN and TURN URLs into checkable destinations, with the TURN username', () => {
    expect(
      iceServerDestinations([
        { urls: 'stun:stun.attacker.test:3478' },
        { urls: ['turn:relay.attacker.test?transport=udp', 'turns:203.0.113.9:5349'], username: 'secret-data', credential: 'x' },
      ]),
    ).toEqual(['https://stun.attacker.test:3478/', 'https://secret-data@relay.attacker.test/', 'https://secret-data@203.0.113.9:5349/']);
  });
  it('ignores what is not an ICE server', () => {
    expect(iceServerDestinations(undefined)).toEqual([]);
    expect(iceServerDestinations([{ urls: 'https://x.test/' }, null, 3])).toEqual([]);
  });
});

describe('candidates', () => {
  it('reads the address and port of a candidate, IPv6 and mDNS included', () => {
    expect(candidateDestination('candidate:1 1 udp 2122260223 203.0.113.7 54400 typ host')).toBe('https://203.0.113.7:54400/');
    expect(candidateDestination('candidate:1 1 udp 2122260223 2001:db8::1 54400 typ host')).toBe('https://[2001:db8::1]:54400/');
    expect(candidateDestination('a=candidate:1 1 udp 1 abcd-ef.local 9 typ host')).toBe('https://abcd-ef.local:9/');
    expect(candidateDestination('garbage')).toBeNull();
  });
  it('finds every candidate in an SDP', () => {
    const sdp = 'v=0\r\na=candidate:1 1 udp 1 203.0.113.7 1000 typ host\r\na=ice-ufrag:abc\r\na=candidate:2 1 udp 1 data-in-label.attacker.test 2000 typ host\r\n';
    expect(sdpDestinations(sdp)).toEqual(['https://203.0.113.7:1000/', 'https://data-in-label.attacker.test:2000/']);
  });
});
