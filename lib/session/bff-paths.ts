/** The top-up reference from a BFF path `/bff/topups/{ref}/...`, when it has the API's shape. */
export function topupRef(request: Request): string | undefined {
  const ref = new URL(request.url).pathname.split("/")[3] ?? "";
  return /^[A-Za-z0-9_-]{1,64}$/.test(ref) ? ref : undefined;
}

export const noSuchTopup = { error: "not_found", message: "No such top-up." } as const;
