/**
 * Loads an ES-module-only package from this CommonJS build. tsc would compile a
 * plain `import()` into `require()`, which Jest's module sandbox cannot do for ES
 * modules; a function built at run time keeps the real `import()`. Its source is
 * made unique because V8 reuses the compilation of identical source, and with it the
 * module context the first copy was made in (under Jest, a test file already gone).
 */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the body is fixed
export const importEsm = new Function(
  'specifier',
  `return import(specifier); // ${Math.random()}`,
) as (specifier: string) => Promise<unknown>;
