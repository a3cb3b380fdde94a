/** The database cannot be used as configured; the message says what to do. */
export class DatabaseSetupError extends Error {}
