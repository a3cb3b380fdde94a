/** The token of an `Authorization: Bearer <token>` header, or undefined for any other shape. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}
