/**
 * The package's client, `freshfacts/client`: a typed fetch-only client of the API and
 * the pay-per-call fetch. Nothing here loads server code.
 */
export * from './freshfacts-client';
export * from './paying-fetch';
