import { candidateDestination, iceServerDestinations, sdpDestinations } from '../peers';
import { requestCall, type PageWindow, type Propose } from './channel';
import { invoke, type Natives } from './natives';

/**
 * WebRTC (semantic layer): a peer connection sends packets to its ICE servers once it gathers
 * candidates (`setLocalDescription`) and to every remote candidate once it has them
 * (`setRemoteDescription`, `addIceCandidate`), with data in the STUN username. Each of those calls waits
 * until every destination it adds is decided as a `browser.request` to an http(s)-shaped URL (see
 * src/content/peers.ts); on BLOCK it rejects with NotAllowedError and nothing is sent. Outside a task
 * every proposal is allowed. The browser-wide WebRTC settings and the network floor are the other
 * layers (UDP never passes declarativeNetRequest).
 */
export function hookPeerConnections(win: PageWindow, n: Natives, propose: Propose): void {
  const Native = (win as unknown as { RTCPeerConnection?: typeof RTCPeerConnection }).RTCPeerConnection;
  if (typeof Native !== 'function') return;
  const proto = Native.prototype;
  const { setLocalDescription, setRemoteDescription, addIceCandidate, setConfiguration } = proto;
  const servers = new n.WeakMap<RTCPeerConnection, string[]>();
  const decided = new n.WeakMap<RTCPeerConnection, Record<string, true>>();

  /** Resolves once every new destination of `connection` is allowed; rejects on the first BLOCK. */
  const decide = (connection: RTCPeerConnection, destinations: string[]): Promise<void> =>
    new n.Promise<void>((resolve, reject) => {
      let known = invoke<Record<string, true> | undefined>(n.weakMapGet, decided, [connection]);
      if (known === undefined) {
        known = n.createObject(null) as Record<string, true>;
        invoke(n.weakMapSet, decided, [connection, known]);
      }
      const seen = known;
      const fresh = destinations.filter((url) => seen[url] !== true);
      let remaining = fresh.length;
      if (remaining === 0) {
        resolve();
        return;
      }
      let failed = false;
      for (const url of fresh) {
        propose(requestCall('GET', url, 'other'), (allow, reason) => {
          if (failed) return;
          if (!allow) {
            failed = true;
            reject(new n.DOMException(`Peer connection blocked by AgentsFence (${reason})`, 'NotAllowedError'));
            return;
          }
          seen[url] = true;
          if (--remaining === 0) resolve();
        });
      }
    });

  const after = <T>(connection: RTCPeerConnection, destinations: string[], call: () => Promise<T>): Promise<T> =>
    invoke<Promise<T>>(n.promiseThen, decide(connection, destinations), [call]);

  const RTCPeerConnectionHook = function RTCPeerConnection(this: unknown, configuration?: RTCConfiguration): RTCPeerConnection {
    if (new.target === undefined) throw new n.TypeError("Failed to construct 'RTCPeerConnection': Please use the 'new' operator.");
    const connection = new Native(configuration);
    invoke(n.weakMapSet, servers, [connection, iceServerDestinations(configuration?.iceServers)]);
    return connection;
  } as unknown as typeof RTCPeerConnection;
  n.defineProperty(RTCPeerConnectionHook, 'prototype', { value: proto });
  n.defineProperty(RTCPeerConnectionHook, 'generateCertificate', { value: Native.generateCertificate, configurable: true, writable: true });

  proto.setConfiguration = function (this: RTCPeerConnection, configuration?: RTCConfiguration): void {
    invoke(setConfiguration, this, [configuration]);
    invoke(n.weakMapSet, servers, [this, iceServerDestinations(configuration?.iceServers)]);
  };
  proto.setLocalDescription = function (this: RTCPeerConnection, ...args: unknown[]): Promise<void> {
    const iceServers = invoke<string[] | undefined>(n.weakMapGet, servers, [this]) ?? [];
    return after(this, iceServers, () => invoke<Promise<void>>(setLocalDescription, this, args));
  } as typeof proto.setLocalDescription;
  proto.setRemoteDescription = function (this: RTCPeerConnection, description: RTCSessionDescriptionInit): Promise<void> {
    const sdp = typeof description?.sdp === 'string' ? description.sdp : '';
    return after(this, sdpDestinations(sdp), () => invoke<Promise<void>>(setRemoteDescription, this, [description]));
  } as typeof proto.setRemoteDescription;
  proto.addIceCandidate = function (this: RTCPeerConnection, ...args: unknown[]): Promise<void> {
    const candidate = args[0] as RTCIceCandidateInit | string | null | undefined;
    const line = typeof candidate === 'string' ? candidate : (candidate?.candidate ?? '');
    const url = candidateDestination(line);
    return after(this, url === null ? [] : [url], () => invoke<Promise<void>>(addIceCandidate, this, args));
  } as typeof proto.addIceCandidate;
  (win as unknown as { RTCPeerConnection: typeof RTCPeerConnection }).RTCPeerConnection = RTCPeerConnectionHook;
  const webkit = win as unknown as { webkitRTCPeerConnection?: unknown };
  if (webkit.webkitRTCPeerConnection !== undefined) webkit.webkitRTCPeerConnection = RTCPeerConnectionHook;
}
