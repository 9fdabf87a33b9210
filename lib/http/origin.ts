/**
 * The origin the client called, from the request's scheme and its Host header, or undefined when the
 * Host is anything but a plain `host[:port]` (a path, credentials, spaces...). For comparing with an
 * Origin header and for echoing back to that same client; never an address this server sends to.
 */
export function requestOrigin(request: Request): string | undefined {
  const host = request.headers.get("host");
  if (!host || !/^[a-z0-9.:[\]-]+$/i.test(host)) return undefined;
  try {
    const origin = new URL(`${new URL(request.url).protocol}//${host}`);
    return origin.pathname === "/" ? origin.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * This app's origin as the browser sees it: the configured public base URL when there is one, else the scheme
 * and the Host header of the request. Only ever compared with the request's own Origin, never used as an address.
 */
export function ownOrigin(request: Request, publicBaseUrl: string | undefined): string | undefined {
  return publicBaseUrl ? new URL(publicBaseUrl).origin : requestOrigin(request);
}
