/**
 * Loads an ES-module-only package from this CommonJS build. tsc would compile a
 * plain `import()` into `require()`, which Jest's module sandbox cannot do for ES
 * modules; a function built at run time keeps the real `import()`.
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed body, the point of this file
export const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<unknown>;
